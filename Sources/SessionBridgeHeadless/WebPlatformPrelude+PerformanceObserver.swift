extension WebPlatformPrelude {
    /// `PerformanceObserver` (Performance Timeline), part of ``source``: an observer of marks and
    /// measures is given them in a task after they are made, sorted by start time; one asking
    /// for a type with `buffered` is given the entries already there at once, as in WebKit
    /// (the navigation's entry included). The types are WebKit's; a page without layout or
    /// resource timing makes no `paint` or `resource` entries.
    static let performanceObserverSource = #"""
                  const supportedEntryTypes = Object.freeze(["mark", "measure", "navigation", "paint", "resource"]);
                  let listInit = null;
                  class PerformanceObserverEntryList {
                    #entries;
                    constructor() {
                      if (listInit === null) throw new TypeError("Illegal constructor");
                      this.#entries = listInit;
                      listInit = null;
                    }
                    getEntries() { return this.#entries.slice(); }
                    getEntriesByType(type) { return this.#entries.filter(entry => entry.entryType === String(type)); }
                    getEntriesByName(name, type = undefined) {
                      return this.#entries.filter(entry => entry.name === String(name) && (type === undefined || entry.entryType === String(type)));
                    }
                  }
                  define(PerformanceObserverEntryList.prototype, Symbol.toStringTag, { value: "PerformanceObserverEntryList", configurable: true });
                  const observing = new Set();
                  let queueEntry;
                  class PerformanceObserver {
                    #callback; #types = new Set(); #mode = null; #buffer = []; #scheduled = false;
                    constructor(callback) {
                      if (arguments.length < 1) throw notEnough("PerformanceObserver", 1);
                      if (typeof callback !== "function") throw new TypeError("Argument 1 ('callback') to the PerformanceObserver constructor must be a function");
                      this.#callback = callback;
                    }
                    static get supportedEntryTypes() { return supportedEntryTypes; }
                    observe(options = {}) {
                      const many = options.entryTypes !== undefined, one = options.type !== undefined;
                      if (!many && !one) throw new TypeError("no type or entryTypes were provided");
                      if (many && one) throw new TypeError("either entryTypes or type must be provided");
                      const mode = many ? "entryTypes" : "type";
                      if (this.#mode !== null && this.#mode !== mode) {
                        throw new DOMException("observer type can't be changed once registered", "InvalidModificationError");
                      }
                      if (many) {
                        const types = [...options.entryTypes].map(String).filter(type => supportedEntryTypes.includes(type));
                        if (types.length === 0) return;
                        this.#mode = mode;
                        this.#types = new Set(types);
                      } else {
                        const type = String(options.type);
                        if (!supportedEntryTypes.includes(type)) return;
                        this.#mode = mode;
                        this.#types.add(type);
                        if (options.buffered) {
                          const entries = performance.getEntriesByType(type);
                          if (entries.length > 0) this.#deliver(entries);
                        }
                      }
                      observing.add(this);
                    }
                    disconnect() {
                      observing.delete(this);
                      this.#buffer = [];
                      this.#types.clear();
                      this.#mode = null;
                    }
                    takeRecords() {
                      const records = this.#buffer;
                      this.#buffer = [];
                      return records;
                    }
                    #deliver(entries) {
                      listInit = entries.slice().sort((a, b) => a.startTime - b.startTime);
                      const list = new PerformanceObserverEntryList();
                      try { this.#callback.call(this, list, this); } catch (error) { native.report(error); }
                    }
                    #queue(entry) {
                      if (!this.#types.has(entry.entryType)) return;
                      this.#buffer.push(entry);
                      if (this.#scheduled) return;
                      this.#scheduled = true;
                      hooks.schedule(() => {
                        this.#scheduled = false;
                        if (!observing.has(this) || this.#buffer.length === 0) return;
                        const entries = this.#buffer;
                        this.#buffer = [];
                        this.#deliver(entries);
                      }, 0);
                    }
                    static {
                      queueEntry = entry => { for (const observer of observing) observer.#queue(entry); };
                    }
                  }
                  define(PerformanceObserver.prototype, Symbol.toStringTag, { value: "PerformanceObserver", configurable: true });
        """#
}
