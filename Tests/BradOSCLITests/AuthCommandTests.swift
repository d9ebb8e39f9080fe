@testable import BradOSCLI
import Foundation
import Testing

@Suite("auth login")
struct AuthCommandTests {
    @Test("a password keeps everything but one trailing line ending")
    func passwordLineEndings() {
        #expect(AuthCommand.Login.password(from: Data("pa ss\n".utf8)) == "pa ss")
        #expect(AuthCommand.Login.password(from: Data("pass\r\n".utf8)) == "pass")
        #expect(AuthCommand.Login.password(from: Data("p\rass".utf8)) == "p\rass")
        #expect(AuthCommand.Login.password(from: Data("pass\n\n".utf8)) == "pass\n")
        #expect(AuthCommand.Login.password(from: Data("pass".utf8)) == "pass")
    }
}
