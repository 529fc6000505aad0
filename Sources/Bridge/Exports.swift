@_exported import ScriptEngine
