import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct WebKitEngineTests {
    @Test func aPageThatNeedsARealDOMRunsOnTheWebKitEngine() throws {
        let page = try RunnerProcess.temporaryFile("dom.html", """
            <!doctype html><title>dom</title>
            <form id=f><input name=user value=demo></form><ul id=list></ul>
            <script>
            (async () => {
              const li = document.createElement('li'); li.textContent = 'one'; document.getElementById('list').appendChild(li);
              let clicks = 0; document.body.addEventListener('click', () => clicks++); document.body.click();
              const form = new FormData(document.getElementById('f'));
              localStorage.setItem('k', 'v');
              const xhr = await new Promise(r => { const x = new XMLHttpRequest(); x.open('GET', '/api/me'); x.onload = () => r(x.status); x.send(); });
              const reply = await window.webkit.messageHandlers.session.postMessage({action: "refresh"});
              console.log('items', document.querySelectorAll('#list li').length, 'clicks', clicks, 'form', form.get('user'),
                          'storage', localStorage.getItem('k'), 'xhr', xhr, 'refresh', reply.ok);
            })();
            </script>
            """)
        // No display set: the runner starts (and stops) an Xvfb of its own.
        let result = try RunnerProcess.run(["run", "--engine", "webkit", page.path],
                                           removing: ["DISPLAY", "WAYLAND_DISPLAY", "GDK_BACKEND", "BROADWAY_DISPLAY"])
        #expect(result.exitCode == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("console.log items 1 clicks 1 form demo storage v xhr 200 refresh true"))
        #expect(result.stdout.contains("bridge session.postMessage({\"action\": \"refresh\"})"))
        #expect(result.stdout.contains("__Host-session"))
        #expect(!result.stdout.contains("sbrt_"), "a refresh token reached the transcript")
    }

    @Test func anUncaughtErrorInAWebKitPageEndsWithExitCodeOne() throws {
        let script = try RunnerProcess.temporaryFile("throws.js", """
            document.title = "x";
            throw new RangeError("from the page");
            """)
        let result = try RunnerProcess.run(["run", "--engine", "webkit", script.path])
        #expect(result.exitCode == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("RangeError: from the page"))
    }
}
