"""A django-oauth-toolkit authorization server for SessionBridge's interop tests."""
