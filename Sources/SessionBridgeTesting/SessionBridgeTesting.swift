/// The `SessionBridgeTesting` layer of SessionBridge. See the package README for the layering.
public enum SessionBridgeTestingModule {}
