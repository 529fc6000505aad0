extension WebPlatformPrelude {
    /// `screen` and `matchMedia` (CSSOM View, Media Queries), part of ``source``, as a WebKit
    /// view that is not shown has them (``DocumentPrelude`` sets the window's geometry to match): a 0 × 0 viewport on a 1280 × 1024 screen at
    /// one device pixel per CSS pixel, a light colour scheme, a fine pointer that hovers, and
    /// no preference otherwise. A page reading them at start-up (a colour scheme, a breakpoint)
    /// gets an answer instead of a `ReferenceError`; the viewport never changes, so a
    /// `MediaQueryList` never fires `change`, and no frame is rendered, so a
    /// `requestAnimationFrame` callback is never called, as in such a view.
    static let mediaSource = #"""
          const viewport = { width: 0, height: 0 }, screenSize = { width: 1280, height: 1024 };
          const screen = {};
          for (const [key, value] of [["width", screenSize.width], ["height", screenSize.height], ["availWidth", screenSize.width],
            ["availHeight", screenSize.height], ["colorDepth", 24], ["pixelDepth", 24]]) define(screen, key, { get: () => value, enumerable: true });
          define(screen, Symbol.toStringTag, { value: "Screen", configurable: true });

          // The media features' values: a number (lengths in px, resolutions in dppx), or a
          // keyword; in a boolean context a feature matches unless it is 0, "none" or "no-preference".
          const mediaFeatures = {
            "width": () => viewport.width, "height": () => viewport.height,
            "device-width": () => screenSize.width, "device-height": () => screenSize.height,
            "resolution": () => 1, "orientation": () => viewport.height >= viewport.width ? "portrait" : "landscape",
            "color": () => 8, "color-index": () => 0, "monochrome": () => 0, "grid": () => 0,
            "prefers-color-scheme": () => "light", "prefers-reduced-motion": () => "no-preference", "prefers-contrast": () => "no-preference",
            "hover": () => "hover", "any-hover": () => "hover", "pointer": () => "fine", "any-pointer": () => "fine",
            "scripting": () => "enabled", "update": () => "fast", "forced-colors": () => "none", "inverted-colors": () => "none",
          };
          const ranged = ["width", "height", "device-width", "device-height", "resolution", "color", "color-index", "monochrome"];
          // A value as the feature's unit: lengths in px (an em is 16 px), resolutions in dppx.
          const mediaValue = (feature, text) => {
            const match = /^(-?\d*\.?\d+)([a-z]*)$/.exec(text);
            if (!match) return /^[a-z-]+$/.test(text) ? text : undefined;
            const number = Number(match[1]), unit = match[2];
            if (feature === "resolution") return { dppx: number, x: number, dpi: number / 96, dpcm: number * 2.54 / 96 }[unit];
            if (unit === "") return number === 0 || !feature.includes("width") && !feature.includes("height") ? number : undefined;
            return { px: number, em: number * 16, rem: number * 16 }[unit];
          };
          const compare = (left, operator, right) =>
            operator === "<" ? left < right : operator === "<=" ? left <= right : operator === ">" ? left > right : operator === ">=" ? left >= right : left === right;
          // One `(…)`: true, false, or undefined when it is not a media feature expression.
          const mediaExpression = text => {
            const inner = text.slice(1, -1).trim();
            const range = /^([^<>=]+?)\s*(<=|>=|<|>|=)\s*([a-z-]+)(?:\s*(<=|>=|<|>|=)\s*([^<>=]+))?$/.exec(inner);
            if (range && mediaFeatures[range[3]] && ranged.includes(range[3])) {
              const left = mediaValue(range[3], range[1].trim()), actual = mediaFeatures[range[3]]();
              if (typeof left !== "number") return undefined;
              const flipped = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=" }[range[2]];
              if (!compare(actual, flipped, left)) return false;
              if (range[4] === undefined) return true;
              const right = mediaValue(range[3], range[5].trim());
              return typeof right === "number" ? compare(actual, range[4], right) : undefined;
            }
            const after = /^([a-z-]+)\s*(<=|>=|<|>|=)\s*([^<>=]+)$/.exec(inner);
            if (after && mediaFeatures[after[1]] && ranged.includes(after[1])) {
              const right = mediaValue(after[1], after[3].trim());
              return typeof right === "number" ? compare(mediaFeatures[after[1]](), after[2], right) : undefined;
            }
            const plain = /^([a-z-]+)\s*(?::\s*(.+))?$/.exec(inner);
            if (!plain) return undefined;
            let name = plain[1], bound = "";
            if (name === "-webkit-min-device-pixel-ratio" || name === "-webkit-max-device-pixel-ratio" || name === "-webkit-device-pixel-ratio") {
              bound = name.slice(8).startsWith("min") ? "min" : name.slice(8).startsWith("max") ? "max" : "";
              name = "resolution";
            } else if (/^(min|max)-/.test(name)) {
              bound = name.slice(0, 3);
              name = name.slice(4);
              if (!ranged.includes(name)) return false;
            }
            const feature = mediaFeatures[name];
            if (!feature) return false;
            const actual = feature();
            if (plain[2] === undefined) return bound === "" && actual !== 0 && actual !== "none" && actual !== "no-preference";
            const wanted = plain[1].startsWith("-webkit-") ? Number(plain[2]) : mediaValue(name, plain[2].trim());
            if (wanted === undefined || Number.isNaN(wanted)) return false;
            return bound === "min" ? actual >= wanted : bound === "max" ? actual <= wanted : actual === wanted;
          };
          // A media query list: [whether it matches, its text as serialized], "not all" when it
          // cannot be parsed.
          const mediaQuery = text => {
            const queries = [];
            let matches = false;
            for (const part of String(text).toLowerCase().split(",")) {
              const query = part.trim().replace(/\s+/g, " ").replace(/\(\s+/g, "(").replace(/\s+\)/g, ")");
              if (query === "" && String(text).trim() !== "") { queries.push("not all"); continue; }
              const tokens = query.match(/\([^()]*\)|[^\s()]+/g) || [];
              if (tokens.join("").replace(/ /g, "").length !== query.replace(/ /g, "").length) { queries.push("not all"); continue; }
              let index = 0, negated = false, result = true, valid = true;
              if (tokens[index] === "not" || tokens[index] === "only") { negated = tokens[index] === "not"; index++; }
              if (index < tokens.length && !tokens[index].startsWith("(")) {
                const type = tokens[index++];
                result = type === "all" || type === "screen";
                if (index < tokens.length && tokens[index++] !== "and") valid = false;
                else if (index === tokens.length && tokens[index - 1] === "and") valid = false;
              } else if (negated) valid = false;
              for (; valid && index < tokens.length; index++) {
                const expression = tokens[index];
                if (!expression.startsWith("(")) { valid = false; break; }
                const value = mediaExpression(expression);
                if (value === undefined) { valid = false; break; }
                result = result && value;
                if (index + 1 < tokens.length && tokens[++index] !== "and") valid = false;
                else if (index === tokens.length - 1 && tokens[index] === "and") valid = false;
              }
              if (!valid) { queries.push("not all"); continue; }
              queries.push(query);
              if (negated ? !result : result) matches = true;
            }
            return [queries.length === 0 || matches, queries.join(", ")];
          };
          let makeMediaQueryList;
          class MediaQueryList extends EventTarget {
            #media;
            constructor(key) {
              if (key !== makeMediaQueryList) throw new TypeError("Illegal constructor");
              super();
            }
            get media() { return this.#media; }
            get matches() { return mediaQuery(this.#media)[0]; }
            addListener(callback) { if (callback) this.addEventListener("change", callback); }
            removeListener(callback) { if (callback) this.removeEventListener("change", callback); }
            static {
              makeMediaQueryList = media => {
                const list = new MediaQueryList(makeMediaQueryList);
                list.#media = media;
                return list;
              };
            }
          }
          handlerAttributes(MediaQueryList.prototype, ["change"]);
          define(MediaQueryList.prototype, Symbol.toStringTag, { value: "MediaQueryList", configurable: true });
          // Frames: a view that is not shown renders none, so WebKit never calls these back there.
          let animationFrames = 0;
          function requestAnimationFrame(callback) {
            if (typeof callback !== "function") throw new TypeError("Window.requestAnimationFrame: argument 1 is not a function.");
            return ++animationFrames;
          }
          function cancelAnimationFrame(handle) {
            if (arguments.length < 1) throw notEnough("Window.cancelAnimationFrame", 1);
          }
          function matchMedia(query) {
            if (arguments.length < 1) throw notEnough("Window.matchMedia", 1);
            return makeMediaQueryList(mediaQuery(query)[1]);
          }
        """#
}
