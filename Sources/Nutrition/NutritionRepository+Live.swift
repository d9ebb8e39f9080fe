import ArgumentParser
import BradOSCore
import BradOSNetworking
import BradOSStorage
import Foundation

extension NutritionRepository {
    /// The repository of the command's profile (TTL from `plan.ttl`).
    /// - Throws: ``ConfigError`` for an invalid TTL.
    public static func live(_ env: AppEnvironment) throws -> NutritionRepository {
        let ttl = try NutritionPlugin.ttlSetting.value(in: env.settings)
        var repository = NutritionRepository(
            cache: NutritionCache(directory: NutritionPlugin.cacheDirectory(env.profile), logger: env.logger),
            queue: PendingQueue(url: NutritionPlugin.queueURL(env.profile)),
            ttl: ttl, offline: env.isOffline, now: env.now, logger: env.logger,
            api: { NutritionRESTClient(client: try await env.client(for: .nutrition)) })
        repository.refreshStamp = .of(domain: NutritionPlugin.domainName, in: env.profile)
        repository.forms = env.output.forms
        return repository
    }
}
