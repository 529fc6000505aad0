import Foundation
import SessionBridgeHeadless
import SessionBridgeMessaging
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeTesting
import Testing

/// A window's `postMessage` moves the ports of its transfer list, as WebKit moves them:
/// `event.ports` holds them and they stay entangled with their partners. (Before, the headless
/// engine ignored the transfer list: `event.ports` was empty.)
@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct WindowMessagePortsOnBothEnginesTests {
    @Test(arguments: Engine.allCases)
    func aWindowsMessageToItselfCarriesTheTransferredPorts(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                #"""
                const channel = new MessageChannel();
                const received = new Promise(resolve => addEventListener("message", event => resolve(event), { once: true }));
                postMessage({ hello: 1 }, "*", [channel.port2]);
                const event = await received;
                const port = event.ports[0];
                const answer = new Promise(resolve => { channel.port1.onmessage = e => resolve(e.data); });
                port.postMessage("through the port");
                // The options form, and a buffer moved with it.
                const buffer = new ArrayBuffer(8);
                const second = new Promise(resolve => addEventListener("message", event => resolve(event), { once: true }));
                postMessage(buffer, { targetOrigin: "*", transfer: [buffer, new MessageChannel().port1] });
                const next = await second;
                return [event.data.hello, event.ports.length, port instanceof MessagePort, Object.isFrozen(event.ports), await answer,
                  next.ports.length, next.data.byteLength, buffer.byteLength];
                """#)
            #expect(read == [1, 1, true, true, "through the port", 1, 8, 0], "\(engine)")
        }
    }
}
