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

    /// A transferred port is a new port on the receiving side, as in WebKit, entangled with the
    /// original's partner and holding what was sent to it meanwhile; the original is detached:
    /// what it posts goes nowhere, and it cannot be transferred again. (Before, the headless
    /// engine gave the same object back, still entangled.)
    @Test(arguments: Engine.allCases)
    func aTransferredPortIsANewPortAndTheOriginalIsDetached(engine: Engine) async throws {
        try await EngineHarness.with(engine, signIn: false) { harness in
            let view = try await harness.makeEchoView()
            let read = try await view.run(
                #"""
                const pause = () => new Promise(resolve => setTimeout(resolve, 50));
                // structuredClone moves the port.
                const channel = new MessageChannel(), heard = [];
                channel.port1.onmessage = event => heard.push(event.data);
                channel.port1.postMessage("sent before the move");
                const moved = structuredClone(channel.port2, { transfer: [channel.port2] });
                moved.postMessage("from the moved port");
                channel.port2.postMessage("from the original");
                const waiting = new Promise(resolve => { moved.onmessage = event => resolve(event.data); });
                let again;
                try { structuredClone(channel.port2, { transfer: [channel.port2] }); again = "cloned"; } catch (error) { again = error.name; }
                // A port sent through another port's message, and through a window's.
                const carrier = new MessageChannel(), third = new MessageChannel();
                const arrived = new Promise(resolve => { carrier.port2.onmessage = resolve; });
                carrier.port1.postMessage({ port: third.port1 }, [third.port1]);
                const event = await arrived;
                const back = new Promise(resolve => { third.port2.onmessage = e => resolve(e.data); });
                event.ports[0].postMessage("through the carried port");
                const fourth = new MessageChannel();
                const windowed = new Promise(resolve => addEventListener("message", resolve, { once: true }));
                postMessage(null, "*", [fourth.port1]);
                const windowEvent = await windowed;
                await pause();
                return [moved !== channel.port2, moved instanceof MessagePort, await waiting, heard.join("|"), again,
                  event.ports[0] !== third.port1, event.data.port === event.ports[0], await back,
                  windowEvent.ports[0] !== fourth.port1];
                """#)
            #expect(
                read == [
                    true, true, "sent before the move", "from the moved port", "DataCloneError",
                    true, true, "through the carried port", true,
                ], "\(engine)")
        }
    }
}
