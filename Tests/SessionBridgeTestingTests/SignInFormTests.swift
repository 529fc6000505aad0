import Foundation
import Testing

@testable import SessionBridgeTesting

/// What the form-filling sign-in reads from a provider's sign-in page, as a browser submits it.
@Suite(.timeLimit(.minutes(1))) struct SignInFormTests {
    static let base = URL(string: "https://idp.example/login")!

    /// Letters whose lower case is longer ("İ" becomes "i̇") no longer move where the page is
    /// cut: a Turkish page had crashed the sign-in (an index past the end) or lost its hidden
    /// fields.
    @Test func aPageWithLettersThatLowerLongerIsReadWhole() throws {
        for heading in ["GİRİŞ YAP İptal", String(repeating: "İ", count: 400)] {
            let html = """
                <h1>\(heading)</h1>
                <FORM method="post" ACTION="/login?step=İKİ"><INPUT type="hidden" name="csrf" value="t0k3n">
                <input name="username"><input type="password" name="password"></FORM>
                """
            let form = try #require(HTMLForm(html: html, baseURL: Self.base))
            let posted = Dictionary(uniqueKeysWithValues: form.filled(username: "ayşe", password: "p").map { ($0.0, $0.1) })
            #expect(posted == ["csrf": "t0k3n", "username": "ayşe", "password": "p"])
            #expect(form.action.path == "/login")
        }
    }

    /// Character references in values are decoded as HTML decodes them: a CSRF token that Go's
    /// templates write with `&#43;` for `+` goes back as the server made it.
    @Test func numericCharacterReferencesAreDecoded() throws {
        let html =
            #"<form action="/s?a=1&amp;b=2"><input type=hidden name=csrf value="k3Jq&#43;Zp&#x2F;w==">"#
            + #"<input name=u><input type=password name=p></form>"#
        let form = try #require(HTMLForm(html: html, baseURL: Self.base))
        #expect(form.fields.first { $0.name == "csrf" }?.value == "k3Jq+Zp/w==")
        #expect(form.action.query == "a=1&b=2")
    }

    /// The button that submits the form is sent with it, as a browser sends its submitter:
    /// Duende IdentityServer's sign-in page cancels a form posted without `Input.Button=login`.
    /// Other buttons and inputs that are not the submitter are not sent.
    @Test func theSubmitButtonIsSentAsTheSubmitter() throws {
        let html = """
            <form method="post"><input name="Input.Username"><input type="password" name="Input.Password">
            <button type="button" name="show">show</button>
            <button name="Input.Button" value="login">Sign in</button><button name="Input.Button" value="cancel">Cancel</button>
            <input type="submit" name="other" value="x"></form>
            """
        let form = try #require(HTMLForm(html: html, baseURL: Self.base))
        let posted = form.filled(username: "alice", password: "pw")
        #expect(posted.map(\.0) == ["Input.Username", "Input.Password", "Input.Button"])
        #expect(posted.last?.1 == "login")
    }
}
