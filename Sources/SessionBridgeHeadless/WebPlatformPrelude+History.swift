extension WebPlatformPrelude {
    /// `history`, `History`, `PopStateEvent` and `HashChangeEvent` (HTML), part of ``source``: the
    /// session history entries of the document itself. `pushState` and `replaceState` keep a
    /// structured clone of their state and change the document's URL without a new document
    /// (``DocumentURL``; a `SecurityError` for a URL the document cannot have); `back`,
    /// `forward` and `go` move among those entries in a later task, firing `popstate` (and
    /// `hashchange` when only the fragment changed). A navigation to a fragment adds an entry
    /// and fires `popstate`, then `hashchange`, as WebKit does.
    /// The page's other documents count one entry each (``SessionHistory``): going past this
    /// document's entries loads the document that many entries away; `go(0)` reloads.
    static let historySource = #"""
          class PopStateEvent extends Event {
            #state;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("PopStateEvent", 1);
              super(type, init);
              this.#state = init && init.state !== undefined ? init.state : null;
            }
            get state() { return this.#state; }
          }
          define(PopStateEvent.prototype, Symbol.toStringTag, { value: "PopStateEvent", configurable: true });
          class HashChangeEvent extends Event {
            #oldURL; #newURL;
            constructor(type, init = undefined) {
              if (arguments.length < 1) throw notEnough("HashChangeEvent", 1);
              super(type, init);
              this.#oldURL = init && init.oldURL !== undefined ? String(init.oldURL) : "";
              this.#newURL = init && init.newURL !== undefined ? String(init.newURL) : "";
            }
            get oldURL() { return this.#oldURL; }
            get newURL() { return this.#newURL; }
          }
          define(HashChangeEvent.prototype, Symbol.toStringTag, { value: "HashChangeEvent", configurable: true });

          const showURL = url => {
            try { return native.history(url); }
            catch (error) { throw new DOMException(error.message, "SecurityError"); }
          };
          const withoutFragment = url => url.replace(/#.*$/, "");
          const entries = [{ url: showURL(null), state: null }];
          let index = 0, restoration = "auto";
          // The page's documents before and after this one, one entry each.
          let [before, after] = native.sessionHistory("counts");
          const addEntry = (entry, replacing) => {
            if (replacing) { entries[index] = entry; return; }
            entries.splice(index + 1);
            entries.push(entry);
            index = entries.length - 1;
            if (after > 0) { after = 0; native.sessionHistory("push"); }
          };
          hooks.fragment = kind => addEntry({ url: showURL(null), state: null }, kind === "replace");
          hooks.popstate = state => new PopStateEvent("popstate", { state });
          const changeState = (name, given, replacing) => {
            if (given.length < 2) throw notEnough(`History.${name}`, 2);
            const state = structuredClone(given[0]);
            const url = given[2] === undefined || given[2] === null ? showURL(null) : showURL(String(given[2]));
            addEntry({ url, state }, replacing);
          };
          class History {
            constructor() { throw new TypeError("Illegal constructor"); }
            get length() { return before + entries.length + after; }
            get state() { return entries[index].state; }
            get scrollRestoration() { return restoration; }
            set scrollRestoration(value) { if (value === "auto" || value === "manual") restoration = value; }
            pushState(data, unused, url = undefined) { changeState("pushState", arguments, false); }
            replaceState(data, unused, url = undefined) { changeState("replaceState", arguments, true); }
            go(delta = 0) {
              const steps = Number(delta) | 0;
              if (steps === 0) { native.navigate("reload", showURL(null)); return; }
              const target = index + steps;
              // Past this document's entries: another document, loaded (one entry each).
              if (target < 0) { if (-target <= before) native.sessionHistory("go", target); return; }
              if (target >= entries.length) { if (target - entries.length + 1 <= after) native.sessionHistory("go", target - entries.length + 1); return; }
              g.setTimeout(() => {
                const from = entries[index].url;
                index = target;
                const entry = entries[index];
                showURL(entry.url);
                g.dispatchEvent(new PopStateEvent("popstate", { state: entry.state }));
                if (withoutFragment(from) === withoutFragment(entry.url) && from !== entry.url) {
                  g.dispatchEvent(new HashChangeEvent("hashchange", { oldURL: from, newURL: entry.url }));
                }
              }, 0);
            }
            back() { this.go(-1); }
            forward() { this.go(1); }
          }
          define(History.prototype, Symbol.toStringTag, { value: "History", configurable: true });
          const history = Object.create(History.prototype);
        """#
}
