import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import Testing

/// `formData()` of a `Response` or `Request` as WebKit reads it: a URL-encoded body, a
/// multipart one (a part with a file name a `File`), and WebKit's `TypeError` for another type
/// or a multipart body it cannot read.
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct FormDataBodiesOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func formDataReadsBodiesAsWebKitDoes(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let seen = try await view.run(
                #"""
                const read = async (promise) => {
                  try {
                    const out = [];
                    for (const [name, value] of await promise) {
                      out.push(typeof value === "string" ? `${name}=${value}` : `${name}: ${Object.prototype.toString.call(value)} ${value.name} ${value.type} ${await value.text()}`);
                    }
                    return out.join(", ");
                  } catch (error) { return error.name + ": " + error.message; }
                };
                const typed = (body, type) => new Response(body, { headers: { "content-type": type } });
                const multipart = "--XX\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue 1\r\n"
                  + "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n--XX--\r\n";
                return [
                  await read(typed("a=1&b=two+words&a=%C3%A9", "application/x-www-form-urlencoded").formData()),
                  await read(typed(multipart, "multipart/form-data; boundary=XX").formData()),
                  await read(typed("a=1", "text/plain").formData()),
                  await read(typed("garbage", "multipart/form-data; boundary=XX").formData()),
                  await read(new Request(location.origin + "/", { method: "POST", body: new URLSearchParams("q=1") }).formData()),
                ];
                """#)
            #expect(
                seen == [
                    "a=1, b=two words, a=é", "field=value 1, file: [object File] a.txt text/plain file body", "TypeError: Type error",
                    "TypeError: Type error", "q=1",
                ], "\(engine)")
        }
    }
}
