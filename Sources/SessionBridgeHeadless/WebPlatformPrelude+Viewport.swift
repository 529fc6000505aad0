extension WebPlatformPrelude {
    /// The window's bars (`locationbar`, `menubar`, … as `BarProp`s, each visible), its
    /// `visualViewport` as the window's geometry has it (0 × 0 at scale 1, never scrolled: a page
    /// without layout has nothing to scroll), and the Streams standard's queuing strategies;
    /// part of ``source``'s late members.
    static let viewportSource = #"""
                  const illegal = () => { throw new TypeError("Illegal constructor"); };
                  let barsMade = false;
                  class BarProp {
                    constructor() { if (barsMade) illegal(); }
                    get visible() { return true; }
                  }
                  define(BarProp.prototype, Symbol.toStringTag, { value: "BarProp", configurable: true });
                  const bars = {};
                  for (const name of ["locationbar", "menubar", "personalbar", "scrollbars", "statusbar", "toolbar"]) bars[name] = new BarProp();
                  barsMade = true;

                  let viewportMade = false;
                  class VisualViewport extends EventTarget {
                    #handlers = { resize: null, scroll: null, scrollend: null };
                    constructor() { if (viewportMade) illegal(); super(); }
                    get offsetLeft() { return 0; }
                    get offsetTop() { return 0; }
                    get pageLeft() { return 0; }
                    get pageTop() { return 0; }
                    get width() { return 0; }
                    get height() { return 0; }
                    get scale() { return 1; }
                    get onresize() { return this.#handlers.resize; }
                    set onresize(value) { replaceHandler(this, this.#handlers, "resize", value); }
                    get onscroll() { return this.#handlers.scroll; }
                    set onscroll(value) { replaceHandler(this, this.#handlers, "scroll", value); }
                    get onscrollend() { return this.#handlers.scrollend; }
                    set onscrollend(value) { replaceHandler(this, this.#handlers, "scrollend", value); }
                  }
                  define(VisualViewport.prototype, Symbol.toStringTag, { value: "VisualViewport", configurable: true });
                  const visualViewport = new VisualViewport();
                  viewportMade = true;

                  const strategyInit = (init, name) => {
                    if (init === null || typeof init !== "object") throw new TypeError("QueuingStrategyInit argument must be an object.");
                    if (init.highWaterMark === undefined) throw new TypeError(`Member QueuingStrategyInit.highWaterMark is required and must be an instance of double`);
                    return Number(init.highWaterMark);
                  };
                  class CountQueuingStrategy {
                    #highWaterMark;
                    constructor(init) { this.#highWaterMark = strategyInit(init); }
                    get highWaterMark() { return this.#highWaterMark; }
                    get size() { return function size() { return 1; }; }
                  }
                  class ByteLengthQueuingStrategy {
                    #highWaterMark;
                    constructor(init) { this.#highWaterMark = strategyInit(init); }
                    get highWaterMark() { return this.#highWaterMark; }
                    get size() { return function size(chunk) { return chunk.byteLength; }; }
                  }
                  define(CountQueuingStrategy.prototype, Symbol.toStringTag, { value: "CountQueuingStrategy", configurable: true });
                  define(ByteLengthQueuingStrategy.prototype, Symbol.toStringTag, { value: "ByteLengthQueuingStrategy", configurable: true });
        """#
}
