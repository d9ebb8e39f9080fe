import ArgumentParser
import BradOSCore
import Foundation
#if canImport(Glibc)
import Glibc
import BradOSAuth
import BradOSNetworking
import BradOSStorage
import BradOSTerminal
#endif

/// The checks of `brados doctor`, in order: configuration, servers and sign-in, folders, then
/// each feature's (libarchive, the picture libraries). Network checks are skipped offline.
public struct Doctor {
    let env: AppEnvironment
    public init(_ env: AppEnvironment) { self.env = env }

    public func run() async -> [DoctorCheck] {
        configuration() + (await servers()) + folders() + env.features.flatMap { $0.doctorChecks(env) } + [Self.updates()]
    }

    /// Every setting, checked by the rule `config set` applies.
    func configuration() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        add("config", .ok, "\(env.paths.configFile.path) (profile \(env.profile.name))")
        for key in env.settings.keys {
            let setting = env.settings.resolve(key.name)
            if let value = setting.value, let problem = key.validate(value) {
                add("config \(key.name)", .fail, "'\(value)' is not \(problem)", fix: "brados config set \(key.name) VALUE (or unset it)")
            }
        }
        return checks
    }

    /// Each service's server (asked for an answer, online) and the profile's sign-in there.
    func servers() async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        let (credentials, inventory) = env.credentials.readAll()
        checks.append(secrets(inventory))
        for service in env.services.map(\.service) {
            let configured = try? env.settings.serverURL(for: service)
            let name = "server \(service.rawValue)"
            guard let configured else {
                add(name, .ok, "the built-in demo backend (no server configured)")
                continue
            }
            let url = configured.url
            if env.isOffline {
                add(name, .warn, "\(url.absoluteString): not checked (offline)")
            } else {
                do {
                    let response = try await env.network.httpTransport.send(HTTPRequest(method: "GET", url: url, timeout: .seconds(5), responseLimit: ResponseLimit.small))
                    add(name, .ok, "\(url.absoluteString) answers (HTTP \(response.status))")
                } catch {
                    add(name, .fail, "\(url.absoluteString): \(error.summaryText)",
                        fix: "Check the URL (`brados config get \(service.configKey)`) and that the server runs.")
                }
            }
            let dedicated = await env.network.isDedicated(service)
            if let credential = credentials.credential(for: service, dedicated: dedicated) {
                let issued = credential.isIssued(by: url, embedded: false)
                add("sign-in \(service.rawValue)", issued ? .ok : .fail, "\(credential.user) at \(credential.server)",
                    fix: issued ? nil : "Sign in to \(url.absoluteString): brados auth login\(dedicated ? " --service \(service.rawValue)" : "") --user NAME --password-stdin")
            } else {
                add("sign-in \(service.rawValue)", .warn, "not signed in",
                    fix: "brados auth login\(dedicated ? " --service \(service.rawValue)" : "") --user NAME --password-stdin")
            }
        }
        return checks
    }

    /// Where secrets go (`credentials.store`), whether the keyring answers, and where each secret lives.
    func secrets(_ inventory: CredentialInventory) -> DoctorCheck {
        let inKeyring = inventory.secrets.filter { $0.location == .keyring }.count
        var detail = "store \(inventory.store.rawValue); keyring: \(inventory.keyring); "
            + "\(Format.count(inKeyring, "secret")) in the keyring, \(inventory.secrets.count - inKeyring) in files"
        if inventory.store == .auto && !inventory.keyringAnswers { detail += " (new secrets go to files)" }
        if let unreadable = inventory.secrets.first(where: { $0.problem != nil }) {
            return DoctorCheck(name: "credentials", status: .fail, detail: detail + "; \(unreadable.name) cannot be read",
                               fix: AuthError.keyring(inventory.keyringAnswers ? .locked : .noService(inventory.keyring)).recovery)
        }
        if inventory.store == .keyring && !inventory.keyringAnswers {
            return DoctorCheck(name: "credentials", status: .fail, detail: detail, fix: AuthError.keyring(.noService(inventory.keyring)).recovery)
        }
        if let target = inventory.migrationTarget {
            return DoctorCheck(name: "credentials", status: .warn, detail: detail, fix: "brados auth migrate --to \(target.rawValue)")
        }
        return DoctorCheck(name: "credentials", status: .ok, detail: detail)
    }

    /// The config, cache and data folders: private (0700), and their sizes.
    func folders() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        func add(_ name: String, _ status: DoctorCheck.Status, _ detail: String, fix: String? = nil) {
            checks.append(DoctorCheck(name: name, status: status, detail: detail, fix: fix))
        }
        for folder in [env.paths.configRoot, env.profile.cacheDirectory, env.profile.dataDirectory] {
            var info = stat()
            guard stat(folder.path, &info) == 0 else { add("folder", .ok, "\(folder.path) (not created yet)"); continue }
            let mode = info.st_mode & 0o777
            let size = FileSystem.regularFiles(under: folder).reduce(Int64(0)) { $0 + $1.size }
            if mode & 0o077 != 0 {
                add("folder", .fail, "\(folder.path) is mode \(String(mode, radix: 8)), readable by others", fix: "chmod 700 \(folder.path)")
            } else {
                add("folder", .ok, "\(folder.path) (0\(String(mode, radix: 8)), \(Format.bytes(size)))")
            }
        }
        return checks
    }
}
