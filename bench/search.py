#!/usr/bin/env python3
"""Search: warm `brados search` over 100,000 coach messages and 50,000 albums vs `rg -i` over
the same text exported to files.

Starts a brados-server seeded with --messages messages in the demo user's first conversation,
--conversations conversations in all and --albums albums (loopback, it stops with this process), signs
a fresh profile in (api and supabase) and fills the caches as a user would: `coach
conversations`, `coach show ID` for every conversation, `library albums --refresh` (albums
and collections). The first `brados search` then builds the index from the caches: its time
is reported. The same text, read from the caches with sqlite3, goes to files for rg: one per
conversation (its title, then one message per line) and one of every album ("title -
artist") and collection name.

The query classes a person types (chosen from what the seed writes, see
Sources/BradOSServer/Coach/CoachSeed.swift and Plex/PlexCatalogue.swift): a rare word (one
conversation's title, in its messages), a medium word (one line in sixteen of the generated
messages), the most common word, a one-letter and a two-letter prefix, two common words (both
must appear; rg looks for the first: it has no "both words on a line, in any order") and a
phrase. Each round runs `brados search QUERY` (newest first, the default), `rg -i -c WORD DIR`
and `brados --version` (whole processes, posix_spawn, output to /dev/null), alternating which
goes first, after a warm-up; medians, min-max and rg / brados are reported. /_admin/stats
checks that a search makes no request. All of it at each --scale (1: the sizes given; 3:
three times the messages, conversations and albums), to show how each query grows.
Goals (issue 44): every class at most rg's time (rg / brados >= 1.0), the rare word within
1.5x `brados --version`, and at three times the data each brados figure within 1.2x of its
figure at the first scale; the index at most 1.5x its size before the prefix indexes.

    python3 bench/search.py [--messages 100000] [--conversations 100] [--albums 50000] [--scales 1,3] [--runs 20] [--warmup 3]
                            [--no-build] [--keep-index DIR] [--configuration release] [--build-dir .build]
"""
import argparse
import json
import os
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

from scale import Brados  # bench/scale.py: a fresh profile against the seeded server
from common import Server, require, timed  # bench/common.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (label, brados search's query, the word rg looks for)
QUERIES = [
    ("rare word", "sabbatical", "sabbatical"),
    ("medium word", "breakfast", "breakfast"),
    ("most common word", "the", "the"),
    ("one-letter prefix", "a*", "a"),
    ("two-letter prefix", "pr*", "pr"),
    ("two common words", "you the", "you"),
    ("phrase", '"small step"', "small step"),
    # Words inside text written without spaces (the library's Japanese, Chinese and Korean
    # titles): through the index's bigrams (SearchGrams). The commonest two characters, a word
    # inside a longer run, kana, Hangul.
    ("CJK: two characters", "東京", "東京"),
    ("CJK: a word inside a run", "神隠し", "神隠し"),
    ("CJK: katakana", "トトロ", "トトロ"),
    ("CJK: Hangul", "밤편지", "밤편지"),
]
# The FTS5 query brados makes of a CJK word (SearchQuery.literal), for counting its matches.
FTS5_OF = {"東京": '{title_grams body_grams} : "東京"', "神隠し": '{title_grams body_grams} : "神隠 隠し"',
           "トトロ": '{title_grams body_grams} : "トト トロ"', "밤편지": '{title_grams body_grams} : "밤편 편지"'}
CJK = [query for _, query, _ in QUERIES if query in FTS5_OF]


def fill_caches(brados, conversations):
    """Signs the profile in and reads every conversation and the whole library, as a user would."""
    brados.run(["auth", "login", "--user", "demo", "--password-stdin"], stdin="demo")
    brados.run(["auth", "login", "--service", "supabase", "--user", "demo@example.com", "--password-stdin"], stdin="demo")
    listed = json.loads(brados.run(["coach", "conversations", "--json"])[0])["conversations"]
    if len(listed) != conversations:
        sys.exit(f"`coach conversations` listed {len(listed)} conversations, the server was seeded with {conversations}")
    for conversation in listed:
        # The whole conversation is downloaded; --last 1 only keeps what is printed small.
        brados.run(["coach", "show", conversation["id"], "--last", "1"])
    brados.run(["library", "albums", "--refresh", "--limit", "1"])
    return sum(conversation["messageCount"] for conversation in listed)


def export(paths, directory):
    """The caches' text in files for rg; returns (messages, albums, collections, files, bytes)."""
    coach = sqlite3.connect(f"file:{paths['coach']}?mode=ro", uri=True)
    messages = 0
    for remote_id, title in coach.execute("SELECT remoteId, title FROM conversation").fetchall():
        with open(os.path.join(directory, f"conversation-{remote_id}.txt"), "w") as handle:
            handle.write((title or "") + "\n")
            for (content,) in coach.execute("SELECT content FROM message WHERE conversationId = ? ORDER BY createdAt, id", (remote_id,)):
                handle.write(content.replace("\n", " ") + "\n")
                messages += 1
    coach.close()
    library = sqlite3.connect(f"file:{paths['library']}?mode=ro", uri=True)
    albums = collections = 0
    with open(os.path.join(directory, "library.txt"), "w") as handle:
        for title, artist in library.execute("SELECT title, artist FROM album ORDER BY id"):
            handle.write(f"{title} - {artist}\n")
            albums += 1
        for (title,) in library.execute("SELECT DISTINCT title FROM collection"):
            handle.write(f"{title}\n")
            collections += 1
    library.close()
    files = [os.path.join(directory, name) for name in os.listdir(directory)]
    return messages, albums, collections, len(files), sum(os.path.getsize(name) for name in files)


def index_parts(index):
    """The index's bytes by what holds them (SQLite's dbstat): the text's inverted index, its
    prefix index, the text itself, the documents' table and its key index."""
    connection = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        return dict(connection.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall())
    finally:
        connection.close()


def index_hits(index, query):
    """Documents the index holds that match the query (all of them, not the first --limit)."""
    try:
        connection = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
        try:
            return connection.execute("SELECT count(*) FROM document_text WHERE document_text MATCH ?", (FTS5_OF.get(query, query),)).fetchone()[0]
        finally:
            connection.close()
    except sqlite3.Error:
        return None


def sizes_with_and_without_grams(index):
    """The index's size vacuumed, and vacuumed with its grams columns emptied (the index
    before they were added holds the same, less them)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "index.sqlite")
        source = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
        target = sqlite3.connect(copy)
        source.backup(target)
        source.close()
        target.execute("INSERT INTO document_text(document_text) VALUES ('optimize')")
        target.commit()
        target.execute("VACUUM")
        with_grams = os.path.getsize(copy)
        target.execute("UPDATE document_text SET title_grams = '', body_grams = '' WHERE title_grams != '' OR body_grams != ''")
        target.execute("INSERT INTO document_text(document_text) VALUES ('optimize')")
        target.commit()
        target.execute("VACUUM")
        target.close()
        return with_grams, os.path.getsize(copy)


def rg_lines(rg, word, directory, env):
    result = subprocess.run([rg, "-i", "-c", "--no-filename", word, directory], env=env, capture_output=True, text=True)
    return sum(int(line) for line in result.stdout.split())


def spread(values):
    return f"{statistics.median(values) * 1000:.1f} ms ({min(values) * 1000:.1f} – {max(values) * 1000:.1f})"


def measure(options, binaries, scale):
    """Everything at one scale: fills the caches, builds the index, times every query class."""
    binary, rg = binaries["brados"], binaries["rg"]
    messages_wanted, conversations, albums_wanted = options.messages * scale, options.conversations * scale, options.albums * scale
    server = Server(binaries["server"], ["--seed-messages", str(messages_wanted), "--seed-conversations", str(conversations),
                                         "--seed-albums", str(albums_wanted)])
    files_dir = tempfile.mkdtemp(prefix="brados-search-rg-")
    try:
        brados = Brados(binary, server)
        listed_messages = fill_caches(brados, conversations)
        where = json.loads(brados.run(["config", "path", "--json"])[0])
        paths = {"coach": os.path.join(where["profile-data"], "coach", "coach.sqlite"),
                 "library": os.path.join(where["profile-data"], "library", "library.sqlite"),
                 "index": os.path.join(where["profile-cache"], "search", "index.sqlite")}
        for name in ("coach", "library"):
            if not os.path.exists(paths[name]):
                sys.exit(f"no {name} cache at {paths[name]}")
        if os.path.exists(paths["index"]):
            sys.exit(f"an index exists before the first search: {paths['index']}")

        # The first search builds the index from the caches.
        server.reset()
        build_seconds = timed([binary, "search", "x"], brados.env)
        build_requests = server.traffic()[0]
        indexed = json.loads(brados.run(["search", "x", "--json"])[0])["indexed"]
        grams_sizes = sizes_with_and_without_grams(paths["index"])
        index_bytes = sum(os.path.getsize(paths["index"] + suffix) for suffix in ("", "-wal") if os.path.exists(paths["index"] + suffix))
        parts = index_parts(paths["index"])
        if options.keep_index:
            shutil.copyfile(paths["index"], os.path.join(options.keep_index, f"index-{scale}x.sqlite"))

        messages, albums, collections, file_count, file_bytes = export(paths, files_dir)
        if messages != listed_messages or albums != albums_wanted:
            sys.exit(f"the caches hold {messages:,} messages and {albums:,} albums, the server {listed_messages:,} and {albums_wanted:,}")
        rg_env = {"PATH": os.environ.get("PATH", ""), "HOME": brados.home}  # no RIPGREP_CONFIG_PATH

        samples = {query: {"brados": [], "rg": []} for _, query, _ in QUERIES}
        version = []
        requests = []

        def search(query):
            server.reset()
            elapsed = timed([binary, "search", "--syntax"] + shlex.split(query), brados.env)
            requests.append(server.traffic()[0])
            return elapsed

        def grep(word):
            return timed([rg, "-i", "-c", word, files_dir], rg_env, accept=(0, 1))

        for round_index in range(options.warmup + options.runs):
            timing = round_index >= options.warmup
            if round_index % 2 == 0:
                elapsed = timed([binary, "--version"], brados.env)
                if timing:
                    version.append(elapsed)
            for _, query, word in QUERIES:
                runs = [("brados", lambda: search(query)), ("rg", lambda: grep(word))]
                if round_index % 2:
                    runs.reverse()
                for name, run in runs:
                    elapsed = run()
                    if timing:
                        samples[query][name].append(elapsed)
            if round_index % 2 == 1:
                elapsed = timed([binary, "--version"], brados.env)
                if timing:
                    version.append(elapsed)
            if round_index == options.warmup - 1:
                requests.clear()
        hits = {query: index_hits(paths["index"], query) for _, query, _ in QUERIES}
        lines = {word: rg_lines(rg, word, files_dir, rg_env) for _, _, word in QUERIES}
    finally:
        server.stop()
        shutil.rmtree(files_dir, ignore_errors=True)
    return {"scale": scale, "messages": messages, "conversations": conversations, "albums": albums, "collections": collections,
            "build_seconds": build_seconds, "build_requests": build_requests, "indexed": indexed, "index_bytes": index_bytes, "grams_sizes": grams_sizes, "parts": parts,
            "file_count": file_count, "file_bytes": file_bytes, "samples": samples, "version": version, "requests": requests,
            "hits": hits, "lines": lines}


def report(options, result):
    documents = sum(result["indexed"].values())
    print(f"### {result['scale']}x: {result['messages']:,} messages in {result['conversations']:,} conversations, "
          f"{result['albums']:,} albums, {result['collections']} collections\n")
    print(f"- index: built by the first search in {result['build_seconds']:.2f} s ({result['build_requests']} requests), "
          f"{documents:,} documents ({', '.join(f'{domain} {count:,}' for domain, count in sorted(result['indexed'].items()))}), "
          f"{result['index_bytes'] / 1e6:.1f} MB")
    with_grams, without = result["grams_sizes"]
    print(f"- the CJK bigrams and emoji (grams columns): vacuumed, {with_grams / 1e6:.1f} MB with them, {without / 1e6:.1f} MB without "
          f"({(with_grams - without) / 1e6:.2f} MB, {with_grams / without - 1:+.1%})")
    print(f"- index's parts: {', '.join(f'{name} {size / 1e6:.1f} MB' for name, size in result['parts'].items() if size >= 100_000)}")
    print(f"- rg's files: {result['file_count']}, {result['file_bytes'] / 1e6:.1f} MB; `rg -i -c WORD DIR`")
    print(f"- `brados --version`: {spread(result['version'])}")
    print()
    print("| query | documents matching | brados search: median (min – max) | rg -i: word, lines matching | rg: median (min – max) | rg / brados |")
    print("|---|---|---|---|---|---|")
    for label, query, word in QUERIES:
        samples = result["samples"][query]
        hit = f"{result['hits'][query]:,}" if result["hits"][query] is not None else "?"
        ratio = statistics.median(samples["rg"]) / statistics.median(samples["brados"])
        peer = f"`{word}`, {result['lines'][word]:,} | {spread(samples['rg'])} | {ratio:.2f}x"
        print(f"| {label}: `{query}` | {hit} of {documents:,} | {spread(samples['brados'])} | {peer} |")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=100_000, help="messages in the demo user's first conversation")
    parser.add_argument("--conversations", type=int, default=100, help="conversations in all (the others are short)")
    parser.add_argument("--albums", type=int, default=50_000)
    parser.add_argument("--scales", type=lambda text: [int(x) for x in text.split(",")], default=[1, 3],
                        help="multiples of the sizes to measure at (default 1,3)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--keep-index", metavar="DIR", help="copy each scale's index to DIR/index-<scale>x.sqlite")
    parser.add_argument("--configuration", default="release", help="debug for a smoke run on the `make test` build")
    parser.add_argument("--build-dir", default=".build", help="SwiftPM scratch path (default .build)")
    options = parser.parse_args()
    if not options.no_build:
        for product in ("brados", "brados-server"):
            subprocess.run(["make", "-s", "release", f"SCRATCH={options.build_dir}", f"PRODUCT={product}"], cwd=ROOT, check=True)
    directory = os.path.join(ROOT, options.build_dir, options.configuration)
    binaries = {"brados": os.path.join(directory, "brados"), "server": os.path.join(directory, "brados-server"), "rg": require("rg")}
    results = [measure(options, binaries, scale) for scale in options.scales]

    print(f"# search: warm `brados search` vs `rg -i` over the same text ({options.configuration}, "
          f"{options.runs} alternated runs after {options.warmup}, {os.cpu_count()} cores)\n")
    for result in results:
        report(options, result)
    median = statistics.median
    first, last = results[0], results[-1]
    goals = {
        "every class at most rg's time (rg / brados >= 1.0), at every scale":
            all(median(r["samples"][q]["rg"]) >= median(r["samples"][q]["brados"]) for r in results for _, q, _ in QUERIES),
        "the rare word within 1.5x `brados --version`, at every scale":
            all(median(r["samples"]["sabbatical"]["brados"]) <= 1.5 * median(r["version"]) for r in results),
        "requests per search: 0": all(max(r["requests"]) == 0 for r in results),
        "every CJK class within 30 ms at the first scale (issue 67)": all(median(first["samples"][q]["brados"]) <= 0.030 for q in CJK),
    }
    if len(results) > 1:
        print(f"| query | brados at {first['scale']}x | at {last['scale']}x | growth | rg growth |")
        print("|---|---|---|---|---|")
        for label, query, _ in QUERIES:
            a, b = median(first["samples"][query]["brados"]), median(last["samples"][query]["brados"])
            ra, rb = median(first["samples"][query]["rg"]), median(last["samples"][query]["rg"])
            print(f"| {label} | {a * 1000:.1f} ms | {b * 1000:.1f} ms | {b / a:.2f}x | {rb / ra:.2f}x |")
        print()
        goals[f"at {last['scale']}x the data, each brados figure within 1.2x of its figure at {first['scale']}x"] = all(
            median(last["samples"][q]["brados"]) <= 1.2 * median(first["samples"][q]["brados"]) for _, q, _ in QUERIES)
    for goal, met in goals.items():
        print(f"- {goal}: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
