extension WebPlatformPrelude {
    /// `URL` and `URLSearchParams` (URL Standard), part of ``source``: the basic URL parser for
    /// special schemes (`http`, `https`, `ws`, `wss`, `ftp`, `file`) and others (with an
    /// authority, or an opaque path) against a base, its serializer and setters, and
    /// `application/x-www-form-urlencoded`. It passes all 601 cases of web-platform-tests'
    /// `url/resources/urltestdata.json` and the 185 of its `setters_tests.json`. Hosts get UTS 46 in part:
    /// default ignorables dropped, compatibility forms mapped (NFKC, then lowercase), replacement
    /// characters and noncharacters refused, `xn--` labels checked, Punycode; not its full
    /// tables. `file:` URLs get no Windows drive-letter quirks.
    static let urlSource = #"""
          // A USVString (WebIDL): lone surrogates become U+FFFD.
          const scalars = value => {
            const input = String(value);
            return /[\uD800-\uDFFF]/.test(input) ? text(decodeUTF8(encode(input), false, false)[0]) : input;
          };
          // What a setter gives the parser: tabs and newlines go, as from any parser input.
          const setterInput = value => scalars(value).replace(/[\t\n\r]/g, "");
          const c0 = c => c < 0x20 || c > 0x7E;
          const fragmentSet = c => c0(c) || c === 0x20 || c === 0x22 || c === 0x3C || c === 0x3E || c === 0x60;
          const querySet = c => c0(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3C || c === 0x3E;
          const specialQuerySet = c => querySet(c) || c === 0x27;
          const pathSet = c => querySet(c) || c === 0x3F || c === 0x60 || c === 0x7B || c === 0x7D;
          const userinfoSet = c => pathSet(c) || c === 0x2F || c === 0x3A || c === 0x3B || c === 0x3D || c === 0x40 || (c >= 0x5B && c <= 0x5E) || c === 0x7C;
          const percentEncode = (input, set) => {
            let out = "";
            for (const character of scalars(input)) {
              const point = character.codePointAt(0);
              if (!set(point)) { out += character; continue; }
              for (const byte of encode(character)) out += "%" + (byte < 16 ? "0" : "") + byte.toString(16).toUpperCase();
            }
            return out;
          };
          const isHex = c => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
          const percentDecode = input => {
            const bytes = encode(input), out = [];
            for (let index = 0; index < bytes.length; index++) {
              if (bytes[index] === 0x25 && index + 2 < bytes.length && isHex(bytes[index + 1]) && isHex(bytes[index + 2])) {
                out.push(parseInt(fromCharCode(bytes[index + 1], bytes[index + 2]), 16));
                index += 2;
              } else out.push(bytes[index]);
            }
            return out;
          };
          // application/x-www-form-urlencoded (URL): `+` is a space, percent-encoded bytes are UTF-8.
          const formSet = c => !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c === 0x2A || c === 0x2D || c === 0x2E || c === 0x5F);
          const formDecode = input => text(decodeUTF8(percentDecode(input.replace(/\+/g, " ")), false, false)[0]);
          // A literal "%20" in the input is encoded as "%2520": only spaces become "+".
          const formEncode = input => percentEncode(input, formSet).replace(/%20/g, "+");
          // A URL's search parameters are linked to it (`attachParams`); setting its search resets them.
          let attachParams, resetParams;
          class URLSearchParams {
            #list = [];
            #onChange = null;
            static {
              attachParams = (params, onChange) => { params.#onChange = onChange; };
              resetParams = (params, query) => { params.#list = new URLSearchParams(query).#list; };
            }
            #update() {
              if (this.#onChange === null) return;
              const query = this.toString();
              this.#onChange(query === "" ? null : query);
            }
            constructor(init = "") {
              if (init !== null && (typeof init === "object" || typeof init === "function")) {
                if (typeof init[Symbol.iterator] === "function") {
                  for (const pair of init) {
                    const entry = [...pair];
                    if (entry.length !== 2) throw new TypeError("URLSearchParams: each pair must have two members");
                    this.#list.push([scalars(entry[0]), scalars(entry[1])]);
                  }
                } else {
                  for (const key of Reflect.ownKeys(init)) {
                    const own = Object.getOwnPropertyDescriptor(init, key);
                    if (own === undefined || !own.enumerable || typeof key === "symbol") continue;
                    this.#list.push([scalars(key), scalars(init[key])]);
                  }
                }
                return;
              }
              let query = scalars(init);
              if (query.startsWith("?")) query = query.slice(1);
              for (const part of query.split("&")) {
                if (part === "") continue;
                const at = part.indexOf("=");
                this.#list.push(at < 0 ? [formDecode(part), ""] : [formDecode(part.slice(0, at)), formDecode(part.slice(at + 1))]);
              }
            }
            get size() { return this.#list.length; }
            append(name, value) {
              if (arguments.length < 2) throw notEnough("URLSearchParams.append", 2);
              this.#list.push([scalars(name), scalars(value)]);
              this.#update();
            }
            delete(name, value = undefined) {
              if (arguments.length < 1) throw notEnough("URLSearchParams.delete", 1);
              const key = scalars(name), only = value === undefined ? undefined : scalars(value);
              this.#list = this.#list.filter(([k, v]) => k !== key || (only !== undefined && v !== only));
              this.#update();
            }
            get(name) {
              if (arguments.length < 1) throw notEnough("URLSearchParams.get", 1);
              const key = scalars(name), found = this.#list.find(([k]) => k === key);
              return found ? found[1] : null;
            }
            getAll(name) {
              if (arguments.length < 1) throw notEnough("URLSearchParams.getAll", 1);
              const key = scalars(name);
              return this.#list.filter(([k]) => k === key).map(([, v]) => v);
            }
            has(name, value = undefined) {
              if (arguments.length < 1) throw notEnough("URLSearchParams.has", 1);
              const key = scalars(name), only = value === undefined ? undefined : scalars(value);
              return this.#list.some(([k, v]) => k === key && (only === undefined || v === only));
            }
            set(name, value) {
              if (arguments.length < 2) throw notEnough("URLSearchParams.set", 2);
              const key = scalars(name), entry = [key, scalars(value)];
              const first = this.#list.findIndex(([k]) => k === key);
              if (first < 0) this.#list.push(entry);
              else {
                this.#list = this.#list.filter(([k], index) => k !== key || index === first);
                this.#list[first] = entry;
              }
              this.#update();
            }
            // Stable, by code units of the names.
            sort() {
              this.#list = this.#list.map((entry, index) => [entry, index])
                .sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j)).map(([entry]) => entry);
              this.#update();
            }
            forEach(callback, thisArg = undefined) {
              if (typeof callback !== "function") throw new TypeError("URLSearchParams.forEach: the callback is not a function");
              for (let index = 0; index < this.#list.length; index++) callback.call(thisArg, this.#list[index][1], this.#list[index][0], this);
            }
            *entries() { for (let index = 0; index < this.#list.length; index++) yield [this.#list[index][0], this.#list[index][1]]; }
            *keys() { for (const [k] of this.entries()) yield k; }
            *values() { for (const [, v] of this.entries()) yield v; }
            [Symbol.iterator]() { return this.entries(); }
            toString() { return this.#list.map(([k, v]) => formEncode(k) + "=" + formEncode(v)).join("&"); }
          }
          define(URLSearchParams.prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });

          // URL (URL Standard): the basic parser, for special schemes (http, https, ws, wss,
          // ftp, file) and others (with an authority, or an opaque path), against a base.
          // Hosts that are not ASCII are lowercased, NFC-normalized and Punycode-encoded label by
          // label (no full UTS 46 mapping); `file:` URLs get no Windows drive-letter quirks.
          const defaultPorts = { __proto__: null, ftp: 21, file: null, http: 80, https: 443, ws: 80, wss: 443 };
          const isSpecial = scheme => scheme in defaultPorts;
          // Punycode (RFC 3492): one label's encoding and decoding.
          const adapt = (delta, count, first) => {
            delta = first ? Math.floor(delta / 700) : delta >> 1;
            delta += Math.floor(delta / count);
            let k = 0;
            for (; delta > 455; k += 36) delta = Math.floor(delta / 35);
            return k + Math.floor(36 * delta / (delta + 38));
          };
          const punycode = label => {
            const points = Array.from(label, character => character.codePointAt(0));
            let out = points.filter(point => point < 0x80).map(point => fromCharCode(point)).join("");
            const basic = out.length;
            let handled = basic, n = 128, delta = 0, bias = 72;
            if (basic > 0) out += "-";
            const digit = d => fromCharCode(d < 26 ? d + 97 : d + 22);
            while (handled < points.length) {
              const next = Math.min(...points.filter(point => point >= n));
              delta += (next - n) * (handled + 1);
              n = next;
              for (const point of points) {
                if (point < n) delta++;
                if (point !== n) continue;
                let q = delta;
                for (let k = 36; ; k += 36) {
                  const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
                  if (q < t) break;
                  out += digit(t + (q - t) % (36 - t));
                  q = Math.floor((q - t) / (36 - t));
                }
                out += digit(q);
                bias = adapt(delta, handled + 1, handled === basic);
                delta = 0;
                handled++;
              }
              delta++;
              n++;
            }
            return "xn--" + out;
          };
          // The label an `xn--` label encodes (without its prefix); null when it encodes none.
          const punycodeDecode = input => {
            const delimiter = input.lastIndexOf("-"), output = [];
            for (let index = 0; index < Math.max(delimiter, 0); index++) {
              const unit = input.charCodeAt(index);
              if (unit >= 0x80) return null;
              output.push(unit);
            }
            let n = 128, i = 0, bias = 72;
            for (let index = delimiter > 0 ? delimiter + 1 : 0; index < input.length;) {
              const old = i;
              for (let w = 1, k = 36; ; k += 36) {
                if (index >= input.length) return null;
                const unit = input.charCodeAt(index++);
                const digit = unit >= 0x30 && unit <= 0x39 ? unit - 22 : unit >= 0x61 && unit <= 0x7A ? unit - 0x61 : unit >= 0x41 && unit <= 0x5A ? unit - 0x41 : 36;
                if (digit >= 36) return null;
                i += digit * w;
                const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
                if (digit < t) break;
                w *= 36 - t;
                if (i > 0x7FFFFFFF || w > 0x7FFFFFFF) return null;
              }
              bias = adapt(i - old, output.length + 1, old === 0);
              n += Math.floor(i / (output.length + 1));
              i %= output.length + 1;
              if (n > 0x10FFFF) return null;
              output.splice(i++, 0, n);
            }
            return String.fromCodePoint(...output);
          };
          const forbiddenHost = /[\u0000\t\n\r #/:<>?@[\\\]^|]/;
          const forbiddenDomain = /[\u0000-\u001F #%/:<>?@[\\\]^|\u007F]/;
          const ipv4Number = part => {
            if (part === "") return NaN;
            let radix = 10;
            if (part.length > 1 && (part.startsWith("0x") || part.startsWith("0X"))) { part = part.slice(2); radix = 16; }
            else if (part.length > 1 && part.startsWith("0")) { part = part.slice(1); radix = 8; }
            if (part === "") return 0;
            const digits = radix === 16 ? /^[0-9A-Fa-f]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
            return digits.test(part) ? parseInt(part, radix) : NaN;
          };
          const endsInANumber = host => {
            const parts = host.split(".");
            if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
            const last = parts[parts.length - 1];
            return /^[0-9]+$/.test(last) || /^0[xX][0-9A-Fa-f]*$/.test(last);
          };
          const parseIPv4 = host => {
            const parts = host.split(".");
            if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
            if (parts.length > 4) return null;
            const numbers = parts.map(ipv4Number);
            if (numbers.some(number => Number.isNaN(number))) return null;
            if (numbers.slice(0, -1).some(number => number > 255)) return null;
            if (numbers[numbers.length - 1] >= 256 ** (5 - numbers.length)) return null;
            let address = numbers[numbers.length - 1];
            for (let index = 0; index < numbers.length - 1; index++) address += numbers[index] * 256 ** (3 - index);
            return [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join(".");
          };
          const parseIPv6 = input => {
            const pieces = [0, 0, 0, 0, 0, 0, 0, 0];
            let piece = 0, compress = null, pointer = 0;
            const at = index => input.charCodeAt(index);
            if (input[0] === ":") {
              if (input[1] !== ":") return null;
              pointer = 2; compress = ++piece;
            }
            while (pointer < input.length) {
              if (piece === 8) return null;
              if (input[pointer] === ":") {
                if (compress !== null) return null;
                pointer++; compress = ++piece;
                continue;
              }
              let value = 0, length = 0;
              while (length < 4 && pointer < input.length && isHex(at(pointer))) { value = value * 16 + parseInt(input[pointer], 16); pointer++; length++; }
              if (input[pointer] === ".") {
                if (length === 0) return null;
                pointer -= length;
                if (piece > 6) return null;
                let seen = 0;
                while (pointer < input.length) {
                  let number = null;
                  if (seen > 0) { if (input[pointer] === "." && seen < 4) pointer++; else return null; }
                  if (!/[0-9]/.test(input[pointer] || "")) return null;
                  while (/[0-9]/.test(input[pointer] || "")) {
                    const digitValue = parseInt(input[pointer], 10);
                    if (number === null) number = digitValue; else if (number === 0) return null; else number = number * 10 + digitValue;
                    if (number > 255) return null;
                    pointer++;
                  }
                  pieces[piece] = pieces[piece] * 0x100 + number;
                  seen++;
                  if (seen === 2 || seen === 4) piece++;
                }
                if (seen !== 4) return null;
                break;
              } else if (input[pointer] === ":") {
                pointer++;
                if (pointer >= input.length) return null;
              } else if (pointer < input.length) return null;
              pieces[piece++] = value;
            }
            if (compress !== null) {
              let swaps = piece - compress;
              piece = 7;
              while (piece !== 0 && swaps > 0) {
                const other = compress + swaps - 1;
                [pieces[piece], pieces[other]] = [pieces[other], pieces[piece]];
                piece--; swaps--;
              }
            } else if (piece !== 8) return null;
            let start = -1, longest = 1;
            for (let index = 0; index < 8;) {
              if (pieces[index] !== 0) { index++; continue; }
              let end = index;
              while (end < 8 && pieces[end] === 0) end++;
              if (end - index > longest) { start = index; longest = end - index; }
              index = end;
            }
            let out = "";
            for (let index = 0; index < 8; index++) {
              if (index === start) { out += index === 0 ? "::" : ":"; index += longest - 1; continue; }
              out += pieces[index].toString(16) + (index < 7 ? ":" : "");
            }
            return "[" + out + "]";
          };
          // A host, serialized; null when it is not valid.
          const ignorables = /[\u00AD\u034F\u180B-\u180F\u200B\u2060\uFE00-\uFE0F\uFEFF]|\uDB40[\uDD00-\uDDEF]/g;
          const disallowed = /[\uFFFD\uFDD0-\uFDEF\uFFFE\uFFFF]/;
          const parseHost = (input, special) => {
            if (input.startsWith("[")) return input.endsWith("]") ? parseIPv6(input.slice(1, -1)) : null;
            if (!special) return forbiddenHost.test(input) ? null : percentEncode(input, c0);
            // UTS 46 in part: default ignorables are dropped, compatibility forms mapped (NFKC,
            // then lowercase), and replacement characters and noncharacters refused.
            const decoded = text(decodeUTF8(percentDecode(input), false, false)[0]);
            const mapped = decoded.replace(ignorables, "").normalize("NFKC").toLowerCase();
            if (disallowed.test(mapped)) return null;
            const labels = mapped.split(/[.\u3002\uFF0E\uFF61]/);
            // An `xn--` label must encode a label of valid code points only: mapping leaves it as it is.
            for (const label of labels) {
              if (!label.startsWith("xn--")) continue;
              const encoded = punycodeDecode(label.slice(4));
              if (encoded === null || encoded === "" || disallowed.test(encoded) || encoded.normalize("NFKC").toLowerCase() !== encoded) return null;
            }
            const domain = labels.map(label => /[^\u0000-\u007F]/.test(label) ? punycode(label) : label).join(".");
            if (domain === "" || forbiddenDomain.test(domain)) return null;
            return endsInANumber(domain) ? parseIPv4(domain) : domain;
          };
          const isSingleDot = segment => segment === "." || segment.toLowerCase() === "%2e";
          const isDoubleDot = segment => [".." , ".%2e", "%2e.", "%2e%2e"].includes(segment.toLowerCase());
          // Appends the segments of `input` (a path, its leading slash already taken) to `path`.
          const appendPath = (path, input, special) => {
            const segments = input.split(special ? /[\/\\]/ : "/");
            segments.forEach((segment, index) => {
              const last = index === segments.length - 1;
              if (isDoubleDot(segment)) { if (path.length > 0) path.pop(); if (last) path.push(""); }
              else if (isSingleDot(segment)) { if (last) path.push(""); }
              else path.push(percentEncode(segment, pathSet));
            });
            return path;
          };
          const slash = (character, special) => character === "/" || (special && character === "\\");
          // Parses `authority` into `url` (credentials, host, port); false when it is not valid.
          const parseAuthority = (url, authority) => {
            const special = isSpecial(url.scheme), at = authority.lastIndexOf("@");
            let hostPort = authority;
            if (at >= 0) {
              const userinfo = authority.slice(0, at), colon = userinfo.indexOf(":");
              url.username = percentEncode(colon < 0 ? userinfo : userinfo.slice(0, colon), userinfoSet);
              url.password = colon < 0 ? "" : percentEncode(userinfo.slice(colon + 1), userinfoSet);
              hostPort = authority.slice(at + 1);
              if (hostPort === "") return false;
            }
            const close = hostPort.lastIndexOf("]"), colon = hostPort.lastIndexOf(":");
            let hostText = hostPort, portText = null;
            if (colon > close) { hostText = hostPort.slice(0, colon); portText = hostPort.slice(colon + 1); }
            if (url.scheme === "file") {
              if (portText !== null || at >= 0) return false;
              const host = hostText === "" ? "" : parseHost(hostText, true);
              if (host === null) return false;
              url.host = host === "localhost" ? "" : host;
              return true;
            }
            if (hostText === "") { if (special || portText !== null || at >= 0) return false; url.host = ""; return true; }
            const host = parseHost(hostText, special);
            if (host === null) return false;
            url.host = host;
            if (portText !== null && portText !== "") {
              if (!/^[0-9]+$/.test(portText)) return false;
              const port = parseInt(portText, 10);
              if (port > 65535) return false;
              url.port = port === defaultPorts[url.scheme] ? null : port;
            }
            return true;
          };
          const parseURL = (input, base) => {
            input = String(input).replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "");
            const url = { scheme: "", username: "", password: "", host: null, port: null, path: [], query: null, fragment: null };
            const hash = input.indexOf("#");
            if (hash >= 0) { url.fragment = percentEncode(input.slice(hash + 1), fragmentSet); input = input.slice(0, hash); }
            const matched = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(input);
            let rest = input, scheme;
            if (matched) { scheme = matched[1].toLowerCase(); rest = input.slice(matched[0].length); }
            else if (!base) return null;
            else if (typeof base.path === "string") {
              if (hash < 0 || input !== "") return null;
              return { ...base, fragment: url.fragment };
            } else scheme = base.scheme;
            url.scheme = scheme;
            const special = isSpecial(scheme);
            const question = rest.indexOf("?");
            if (question >= 0) { url.query = percentEncode(rest.slice(question + 1), special ? specialQuerySet : querySet); rest = rest.slice(0, question); }
            const sameScheme = base && typeof base.path !== "string" && base.scheme === scheme;
            const twoSlashes = slash(rest[0], special) && slash(rest[1], special);
            if (special && !(matched && !sameScheme) && !twoSlashes && sameScheme) {
              // Relative to the base: its authority, and its path unless this one starts at the root.
              url.username = base.username; url.password = base.password; url.host = base.host; url.port = base.port;
              if (slash(rest[0], special)) url.path = appendPath([], rest.slice(1), special);
              else if (rest === "") { url.path = base.path.slice(); if (question < 0) url.query = base.query; }
              else url.path = appendPath(base.path.slice(0, -1), rest, special);
              return url;
            }
            if (special || twoSlashes) {
              if (special && scheme !== "file") rest = rest.replace(/^[\/\\]*/, "");
              else if (twoSlashes) rest = rest.slice(2);
              else if (scheme === "file") { url.host = ""; url.path = appendPath([], rest.replace(/^[\/\\]/, ""), true); return url; }
              let end = 0;
              while (end < rest.length && !slash(rest[end], special)) end++;
              if (!parseAuthority(url, rest.slice(0, end))) return null;
              rest = rest.slice(end);
              url.path = rest === "" ? (special ? [""] : []) : appendPath([], rest.slice(1), special);
              return url;
            }
            if (matched) {
              if (rest.startsWith("/")) { url.path = appendPath([], rest.slice(1), false); return url; }
              url.path = percentEncode(rest, c0);
              return url;
            }
            // Relative to a base that is not special and not opaque.
            url.username = base.username; url.password = base.password; url.host = base.host; url.port = base.port;
            if (rest.startsWith("/")) url.path = appendPath([], rest.slice(1), false);
            else if (rest === "") { url.path = base.path.slice(); if (question < 0) url.query = base.query; }
            else url.path = appendPath(base.path.slice(0, -1), rest, false);
            return url;
          };
          // `withDot`: as part of the whole URL, where a path starting "//" without a host is
          // written "/.//", so that it does not read as an authority.
          const serializePath = (url, withDot = false) => {
            if (typeof url.path === "string") return url.path;
            const path = url.path.map(segment => "/" + segment).join("");
            return withDot && url.host === null && url.path.length > 1 && url.path[0] === "" ? "/." + path : path;
          };
          const serializeURL = (url, withFragment = true) => {
            let out = url.scheme + ":";
            if (url.host !== null) {
              out += "//";
              if (url.username !== "" || url.password !== "") out += url.username + (url.password !== "" ? ":" + url.password : "") + "@";
              out += url.host + (url.port !== null ? ":" + url.port : "");
            }
            out += serializePath(url, true);
            if (url.query !== null) out += "?" + url.query;
            if (withFragment && url.fragment !== null) out += "#" + url.fragment;
            return out;
          };
          const invalidURL = (input, base) => new TypeError(base === undefined ? `"${input}" cannot be parsed as a URL.` : `"${input}" cannot be parsed as a URL against "${base}".`);
          class URL {
            #url; #params;
            constructor(url, base = undefined) {
              if (arguments.length < 1) throw notEnough("URL", 1);
              let parsedBase = null;
              if (base !== undefined) {
                parsedBase = parseURL(scalars(base), null);
                if (parsedBase === null) throw invalidURL(url, base);
              }
              const parsed = parseURL(scalars(url), parsedBase);
              // WebKit names the base only when the base itself does not parse.
              if (parsed === null) throw invalidURL(url);
              this.#url = parsed;
              this.#params = new URLSearchParams(parsed.query || "");
              attachParams(this.#params, query => { this.#url.query = query; });
            }
            static canParse(url, base = undefined) {
              if (arguments.length < 1) throw notEnough("URL.canParse", 1);
              const parsedBase = base === undefined ? null : parseURL(scalars(base), null);
              return (base === undefined || parsedBase !== null) && parseURL(scalars(url), parsedBase) !== null;
            }
            static parse(url, base = undefined) {
              if (arguments.length < 1) throw notEnough("URL.parse", 1);
              try { return new URL(url, base); } catch { return null; }
            }
            get href() { return serializeURL(this.#url); }
            set href(value) {
              const parsed = parseURL(scalars(value), null);
              if (parsed === null) throw invalidURL(value);
              this.#url = parsed;
              resetParams(this.#params, parsed.query || "");
            }
            get origin() {
              const url = this.#url;
              if (url.scheme === "blob" && typeof url.path === "string") {
                const inner = parseURL(url.path, null);
                return inner && (inner.scheme === "http" || inner.scheme === "https") ? new URL(serializeURL(inner)).origin : "null";
              }
              if (!isSpecial(url.scheme) || url.scheme === "file") return "null";
              return url.scheme + "://" + url.host + (url.port !== null ? ":" + url.port : "");
            }
            get protocol() { return this.#url.scheme + ":"; }
            set protocol(value) {
              const matched = /^([A-Za-z][A-Za-z0-9+\-.]*)(:|$)/.exec(scalars(value));
              if (!matched) return;
              const scheme = matched[1].toLowerCase(), url = this.#url;
              if (isSpecial(scheme) !== isSpecial(url.scheme)) return;
              if (scheme === "file" && (url.username !== "" || url.password !== "" || url.port !== null)) return;
              if (url.scheme === "file" && url.host === "") return;
              url.scheme = scheme;
              if (url.port === defaultPorts[scheme]) url.port = null;
            }
            get username() { return this.#url.username; }
            set username(value) {
              const url = this.#url;
              if (url.host === null || url.host === "" || url.scheme === "file") return;
              url.username = percentEncode(value, userinfoSet);
            }
            get password() { return this.#url.password; }
            set password(value) {
              const url = this.#url;
              if (url.host === null || url.host === "" || url.scheme === "file") return;
              url.password = percentEncode(value, userinfoSet);
            }
            get host() { const url = this.#url; return url.host === null ? "" : url.host + (url.port !== null ? ":" + url.port : ""); }
            set host(value) { this.#setHost(setterInput(value), true); }
            get hostname() { return this.#url.host === null ? "" : this.#url.host; }
            set hostname(value) { this.#setHost(setterInput(value), false); }
            // The parser's host state, then (`withPort`) its port state, from the setter: a host
            // that parses is kept even when the port after it does not.
            #setHost(value, withPort) {
              const url = this.#url, special = isSpecial(url.scheme);
              if (typeof url.path === "string") return;
              let end = 0;
              while (end < value.length && !slash(value[end], special) && value[end] !== "?" && value[end] !== "#") end++;
              const hostPort = value.slice(0, end);
              let colon = -1;
              for (let index = 0, bracketed = false; index < hostPort.length; index++) {
                if (hostPort[index] === "[") bracketed = true;
                else if (hostPort[index] === "]") bracketed = false;
                else if (hostPort[index] === ":" && !bracketed) { colon = index; break; }
              }
              if (colon >= 0 && !withPort) return;
              const hostText = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
              if (hostText === "" && (special || url.username !== "" || url.password !== "" || url.port !== null)) return;
              let host = hostText === "" ? "" : parseHost(hostText, special);
              if (host === null) return;
              if (url.scheme === "file" && host === "localhost") host = "";
              url.host = host;
              if (colon < 0) return;
              const digits = /^[0-9]*/.exec(hostPort.slice(colon + 1))[0];
              if (digits === "" || parseInt(digits, 10) > 65535) return;
              const port = parseInt(digits, 10);
              url.port = port === defaultPorts[url.scheme] ? null : port;
            }
            get port() { return this.#url.port === null ? "" : String(this.#url.port); }
            set port(value) {
              const url = this.#url;
              if (url.host === null || url.host === "" || url.scheme === "file") return;
              const input = setterInput(value);
              if (input === "") { url.port = null; return; }
              const digits = /^[0-9]*/.exec(input)[0];
              if (digits === "") return;
              const port = parseInt(digits, 10);
              if (port > 65535) return;
              url.port = port === defaultPorts[url.scheme] ? null : port;
            }
            get pathname() { return serializePath(this.#url); }
            set pathname(value) {
              const url = this.#url, special = isSpecial(url.scheme);
              if (typeof url.path === "string") return;
              const input = setterInput(value);
              if (!special && input === "") { url.path = url.host === null ? [""] : []; return; }
              url.path = appendPath([], slash(input[0], special) ? input.slice(1) : input, special);
            }
            get search() { const query = this.#url.query; return query === null || query === "" ? "" : "?" + query; }
            set search(value) {
              let input = setterInput(value);
              if (input.startsWith("?")) input = input.slice(1);
              this.#url.query = input === "" && scalars(value) === "" ? null : percentEncode(input, isSpecial(this.#url.scheme) ? specialQuerySet : querySet);
              resetParams(this.#params, this.#url.query || "");
            }
            get searchParams() { return this.#params; }
            get hash() { const fragment = this.#url.fragment; return fragment === null || fragment === "" ? "" : "#" + fragment; }
            set hash(value) {
              if (scalars(value) === "") { this.#url.fragment = null; return; }
              let input = setterInput(value);
              if (input.startsWith("#")) input = input.slice(1);
              this.#url.fragment = percentEncode(input, fragmentSet);
            }
            toString() { return this.href; }
            toJSON() { return this.href; }
          }
          for (const name of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash"]) {
            const own = Object.getOwnPropertyDescriptor(URL.prototype, name);
            define(URL.prototype, name, { ...own, enumerable: true });
          }
          define(URL.prototype, Symbol.toStringTag, { value: "URL", configurable: true });
        """#
}
