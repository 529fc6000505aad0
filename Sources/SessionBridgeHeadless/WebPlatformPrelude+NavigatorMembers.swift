extension WebPlatformPrelude {
    /// What `navigator` tells a page that asks about the user and the device, as a WebKit view
    /// that is not shown tells it, part of ``source``'s late members: every permission is still
    /// to be asked (`prompt`), there has been no user activation, the clipboard is not allowed
    /// without one, there are no media devices or gamepads, and notifications are never
    /// permitted (`Notification`: its permission `default`, a request `denied`, a notification
    /// made all the same an `error`).
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
                  // Notifications: never permitted in a view that is not shown. The permission stays
                  // "default", asking for it answers "denied", and a notification made all the same
                  // fires `error`, as WebKit's do.
                  class Notification extends EventTarget {
                    #title; #body; #tag; #dir; #lang; #icon; #silent; #data;
                    #handlers = { click: null, close: null, error: null, show: null, display: null };
                    constructor(title, options = undefined) {
                      if (arguments.length < 1) throw notEnough("Notification", 1);
                      super();
                      const given = options === undefined || options === null ? {} : options;
                      const text = value => value === undefined ? "" : String(value);
                      this.#title = String(title);
                      this.#body = text(given.body); this.#tag = text(given.tag); this.#lang = text(given.lang); this.#icon = text(given.icon);
                      this.#dir = given.dir === "ltr" || given.dir === "rtl" ? given.dir : "auto";
                      this.#silent = given.silent === undefined || given.silent === null ? null : !!given.silent;
                      this.#data = given.data === undefined ? null : structuredClone(given.data);
                      hooks.schedule(() => this.dispatchEvent(trusted(new Event("error"))), 0);
                    }
                    static get permission() { return "default"; }
                    static requestPermission(callback = undefined) {
                      if (typeof callback === "function") hooks.schedule(() => callback("denied"), 0);
                      return Promise.resolve("denied");
                    }
                    get title() { return this.#title; }
                    get body() { return this.#body; }
                    get tag() { return this.#tag; }
                    get dir() { return this.#dir; }
                    get lang() { return this.#lang; }
                    get icon() { return this.#icon; }
                    get silent() { return this.#silent; }
                    get data() { return this.#data; }
                    show() {}
                    close() {}
                    get onclick() { return this.#handlers.click; }
                    set onclick(value) { replaceHandler(this, this.#handlers, "click", value); }
                    get onclose() { return this.#handlers.close; }
                    set onclose(value) { replaceHandler(this, this.#handlers, "close", value); }
                    get onerror() { return this.#handlers.error; }
                    set onerror(value) { replaceHandler(this, this.#handlers, "error", value); }
                    get onshow() { return this.#handlers.show; }
                    set onshow(value) { replaceHandler(this, this.#handlers, "show", value); }
                    get ondisplay() { return this.#handlers.display; }
                    set ondisplay(value) { replaceHandler(this, this.#handlers, "display", value); }
                  }
                  for (const [made, tag] of [[PermissionStatus, "PermissionStatus"], [Permissions, "Permissions"], [UserActivation, "UserActivation"],
                    [Clipboard, "Clipboard"], [MediaDevices, "MediaDevices"], [Notification, "Notification"]]) {
                    define(made.prototype, Symbol.toStringTag, { value: tag, configurable: true });
                  }
                  const navigatorMembers = makeOwn(() => ({
                    permissions: new Permissions(), userActivation: new UserActivation(), clipboard: new Clipboard(), mediaDevices: new MediaDevices(),
                  }));
        """#
}
