extension WebPlatformPrelude {
    /// What `navigator` tells a page that asks about the user and the device, as a WebKit view
    /// that is not shown tells it, part of ``source``'s late members: every permission is still
    /// to be asked (`prompt`), there has been no user activation, the clipboard is not allowed
    /// without one, and there are no media devices or gamepads.
    static let navigatorMembersSource = #"""
                  const notAllowed = () => new DOMException(
                    "The request is not allowed by the user agent or the platform in the current context, possibly because the user denied permission.",
                    "NotAllowedError");
                  const permissionNames = ["accelerometer", "background-fetch", "bluetooth", "camera", "display-capture", "geolocation", "gyroscope",
                    "magnetometer", "microphone", "midi", "notifications", "push", "screen-wake-lock", "speaker-selection", "storage-access"];
                  let making = false;
                  const makeOwn = make => { making = true; try { return make(); } finally { making = false; } };
                  class PermissionStatus extends EventTarget {
                    #name; #handlers = { change: null };
                    constructor(name) { if (!making) throw new TypeError("Illegal constructor"); super(); this.#name = name; }
                    get name() { return this.#name; }
                    get state() { return "prompt"; }
                    get onchange() { return this.#handlers.change; }
                    set onchange(value) { replaceHandler(this, this.#handlers, "change", value); }
                  }
                  class Permissions {
                    constructor() { if (!making) throw new TypeError("Illegal constructor"); }
                    query(descriptor) {
                      if (arguments.length < 1) return Promise.reject(notEnough("Permissions.query", 1));
                      const name = descriptor !== null && typeof descriptor === "object" ? String(descriptor.name) : undefined;
                      if (!permissionNames.includes(name)) return Promise.reject(new TypeError("Type error"));
                      return Promise.resolve(makeOwn(() => new PermissionStatus(name)));
                    }
                  }
                  class UserActivation {
                    constructor() { if (!making) throw new TypeError("Illegal constructor"); }
                    get isActive() { return false; }
                    get hasBeenActive() { return false; }
                  }
                  class Clipboard extends EventTarget {
                    constructor() { if (!making) throw new TypeError("Illegal constructor"); super(); }
                    read() { return Promise.reject(notAllowed()); }
                    readText() { return Promise.reject(notAllowed()); }
                    write(data) { return arguments.length < 1 ? Promise.reject(notEnough("Clipboard.write", 1)) : Promise.reject(notAllowed()); }
                    writeText(data) { return arguments.length < 1 ? Promise.reject(notEnough("Clipboard.writeText", 1)) : Promise.reject(notAllowed()); }
                  }
                  class MediaDevices extends EventTarget {
                    #handlers = { devicechange: null };
                    constructor() { if (!making) throw new TypeError("Illegal constructor"); super(); }
                    enumerateDevices() { return Promise.resolve([]); }
                    getSupportedConstraints() { return {}; }
                    getUserMedia() { return Promise.reject(notAllowed()); }
                    getDisplayMedia() { return Promise.reject(notAllowed()); }
                    get ondevicechange() { return this.#handlers.devicechange; }
                    set ondevicechange(value) { replaceHandler(this, this.#handlers, "devicechange", value); }
                  }
                  for (const [made, tag] of [[PermissionStatus, "PermissionStatus"], [Permissions, "Permissions"], [UserActivation, "UserActivation"],
                    [Clipboard, "Clipboard"], [MediaDevices, "MediaDevices"]]) {
                    define(made.prototype, Symbol.toStringTag, { value: tag, configurable: true });
                  }
                  const navigatorMembers = makeOwn(() => ({
                    permissions: new Permissions(), userActivation: new UserActivation(), clipboard: new Clipboard(), mediaDevices: new MediaDevices(),
                  }));
        """#
}
