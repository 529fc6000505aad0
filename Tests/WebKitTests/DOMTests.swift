import Foundation
import SessionBridgeHeadless
import SessionBridgeScriptEngine
import SessionBridgeTestSupport
import SessionBridgeWebKit
import Testing

@Suite(.serialized, .timeLimit(.minutes(2)), .hangWatchdog) struct DOMTests {
    static let page = """
        <!doctype html><title>dom</title>
        <form id=f><input name=user value=demo><input name=remember type=checkbox checked></form>
        <ul id=list></ul><button id=b>add</button>
        <script>
        window.__clicks = 0;
        document.getElementById('b').addEventListener('click', () => {
          window.__clicks++;
          const li = document.createElement('li');
          li.textContent = 'item ' + window.__clicks;
          document.getElementById('list').appendChild(li);
        });
        </script>
        """

    @Test func aPageWithARealDOMRunsElementsEventsFormsStorageAndXHR() async throws {
        try await withSite(pages: ["/dom": Self.page]) { site in
            try await withView { view in
                try await view.load(site.url("/dom"))
                let result = try await view.callAsyncJavaScript(
                    """
                    const button = document.getElementById('b');
                    button.click(); button.dispatchEvent(new MouseEvent('click', {bubbles: true}));
                    const items = [...document.querySelectorAll('#list li')].map(li => li.textContent);
                    const form = new FormData(document.getElementById('f'));
                    localStorage.setItem('k', 'v-' + items.length);
                    const xhr = await new Promise((resolve, reject) => {
                      const request = new XMLHttpRequest();
                      request.open('POST', '/submit');
                      request.onload = () => resolve([request.status, request.responseText]);
                      request.onerror = reject;
                      request.send(new URLSearchParams(form).toString());
                    });
                    return {items, form: [...form.entries()], stored: localStorage.getItem('k'), xhr};
                    """)
                #expect(result["items"] == ["item 1", "item 2"])
                #expect(result["form"] == [["user", "demo"], ["remember", "on"]])
                #expect(result["stored"] == "v-2")
                #expect(result["xhr"] == [200, "user=demo&remember=on"])
                #expect(site.requests(to: "/submit").first?.method == "POST")
            }
        }
    }
}
