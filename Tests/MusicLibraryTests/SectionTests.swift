import BradOSCore
import Foundation
@testable import MusicLibrary
import Testing
import TestSupport

@Suite("Library: choosing the music section")
struct SectionTests {
    @Test("choosing a section: by key, by title in any case (a music one first), the first music section by default; movies and unknown names refused")
    func chooseSection() throws {
        let sections = [PlexSection(key: "3", type: "movie", title: "Live"), PlexSection(key: "1", type: "artist", title: "Music"),
                        PlexSection(key: "2", type: "artist", title: "Live")]
        #expect(try LibraryRepository.choose(nil, from: sections).key == "1")
        #expect(try LibraryRepository.choose("2", from: sections).key == "2")
        #expect(try LibraryRepository.choose("LIVE", from: sections).key == "2", "the music section of that title")
        #expect(try LibraryRepository.choose("music", from: sections).key == "1")
        func failure(_ wanted: String?, _ among: [PlexSection]) -> String {
            do { return "chose \(try LibraryRepository.choose(wanted, from: among).key)" } catch let error as LibraryError {
                switch error {
                case let .notMusic(section, _): return "not music \(section.key)"
                case let .noSuchSection(name, _): return "no such \(name)"
                case .noMusicSection: return "no music"
                default: return "\(error)"
                }
            } catch { return "\(error)" }
        }
        #expect(failure("3", sections) == "not music 3")
        #expect(failure("Podcasts", sections) == "no such Podcasts")
        #expect(failure(nil, [sections[0]]) == "no music")
    }
}
