import BradOSCore
import Foundation

/// Values for the core commands' help examples, taken from the bound composition's plugins: the core
/// names no domain, service or domain setting of its own, and its examples still show real ones.
public enum HelpExamples {
    /// The first `count` domain names, space-separated (`DOMAIN` without plugins).
    public static func domains(_ count: Int, separator: String = " ") -> String {
        let names = Composition.current.plugins.prefix(count).map(\.name)
        return names.isEmpty ? "DOMAIN" : names.joined(separator: separator)
    }

    /// A domain's config key (`network.timeout` without plugins).
    public static var domainKey: String { Composition.current.plugins.lazy.flatMap(\.configKeys).first?.name ?? Settings.networkTimeoutSetting.name }

    /// A domain setting and a value for it, for `config set` (a core one without plugins).
    public static var domainSetting: (key: String, value: String) {
        guard let key = Composition.current.plugins.lazy.flatMap(\.configKeys).last(where: { $0.defaultValue != nil }), let value = key.defaultValue else {
            return (Settings.networkTimeoutSetting.name, "1m")
        }
        return (key.name, value)
    }

    /// A service's own `server.<name>` key (`server.api` without plugins).
    public static var serviceKey: String { (ServiceDescription.all(Composition.current.plugins).dropFirst().first ?? .account).service.configKey }

    /// A service with its own accounts (`--service NAME`), if any plugin declares one.
    public static var dedicatedService: String? { ServiceDescription.all(Composition.current.plugins).first { $0.account != nil }?.service.rawValue }
}

extension HelpExamples {
    /// Help lines of two columns, the first padded to the widest (`  coach     a message …`):
    /// what each domain does for a command. Plain Swift, not NSString's padding: help texts are
    /// made while parsing (bench/RESULTS.md).
    static func columns(_ rows: [(name: String, text: String)], indent: String = "  ") -> [String] {
        let width = rows.map(\.name.count).max() ?? 0
        return rows.map { indent + $0.name + String(repeating: " ", count: width - $0.name.count) + "  " + $0.text }
    }
}
