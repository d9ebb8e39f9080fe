#!/usr/bin/env python3
"""Search: `brados search`'s FTS5 index survives SIGKILL at any moment of its
build or update, and no query, however hostile, crashes it.

1. Kill mid-index. A profile with large caches (a server seeded with --messages messages in
   one conversation, --conversations conversations, --albums albums; every conversation
   shown, the library, the meal plan and the visits cached). The time of a full index build
   is measured first (`search --reindex`). Then --rounds rounds, each one of:
   - the index removed (its file and sidecars), then `search protein`;
   - `search --reindex` (which removes the index and builds it again);
   - a change on the server (through /_admin/sql: messages added to or deleted from a
     conversation, a rename, a new conversation, a deleted one; through /_admin/plex: albums
     added, retitled, deleted) brought into the caches by the commands that read it
     (`coach show`, `coach conversations`, `library albums --refresh`), sometimes with the
     index removed too, then `search protein`;
   the search SIGKILLed after a random delay within the full build's time. Then
   `search zzzz` runs to completion, and: it exits 0; the index passes
   `PRAGMA integrity_check` and FTS5's own `integrity-check` (on a copy); every document
   has its text and every text its document; the index holds exactly the coach and library
   stores' rows (the queries of Tests/TestSupport/SearchIndexCheck.swift) at the stores'
   stamps, and the meal plan's and the visits' documents as after a clean build; every
   JSON file and SQLite database of the profile (the coach and library stores among them)
   passes. Any difference is a failure.
2. Hostile queries: 10 KB of words; 10 KB of operators and quotes (`"(`, `a OR NOT `,
   unbalanced `NEAR(`, `*`, `title:`, `^`, column filters); control characters; invalid
   UTF-8 bytes as the argument; a prefix most documents match (`s*`), alone and with
   --domain; --random-queries queries from FTS5's grammar and from its syntax fragments
   at random (with -F, --json, --domain and --limit now and then). Each must exit 0 or 64 within 10 s,
   never by a signal or with a crash on stderr, and a 64 must say why (stderr names "FTS5"
   or the "query"). The index still equals the caches afterwards.

Figures: kills, kills that landed while the search ran, kills that left the index behind the
caches (mid-build) or complete, the kill delays, queries, their exit codes, failures (goal 0).

    python3 reliability/search.py [--rounds 50] [--messages 20000] [--conversations 40] [--albums 20000]
        [--random-queries 200] [--build-dir .build] [--configuration debug]
"""
import collections
import errno
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import suite_parser, Binaries, Profile, Server, Tally, corrupt_files, kill_group  # noqa: E402

CRASH_MARKERS = ("Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGSEGV", "SIGILL", "panic")
QUERY_TIMEOUT = 10
INDEX_SIDECARS = ("", "-wal", "-shm", "-journal")
VOCABULARY = ["protein", "breakfast", "blue", "train", "café", "naïve", "Zürich", "日本語", "émigré", "oats", "salmon",
              "marathon", "don't", "rock'n'roll", "self-care", "C++", "e-mail", "50%", "x_y", "🍣", "ß", "İstanbul"]


# --- the index and the stores, as Tests/TestSupport/SearchIndexCheck.swift reads them ---------

def paths(home, profile="default"):
    return {
        "index": os.path.join(home, "cache", "users", profile, "search", "index.sqlite"),
        "coach": os.path.join(home, "data", "users", profile, "coach", "coach.sqlite"),
        "library": os.path.join(home, "data", "users", profile, "library", "library.sqlite"),
    }


def rows(database, sql, arguments=()):
    """A query's rows as tuples of text (None as ''), sorted: SearchIndexCheck.rows."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        found = connection.execute(sql, arguments).fetchall()
    finally:
        connection.close()
    return sorted(tuple("" if value is None else str(value) for value in row) for row in found)


def indexed(home, domain):
    return rows(paths(home)["index"], "SELECT d.key, t.title, t.body FROM document AS d JOIN document_text AS t ON t.rowid = d.id "
                                      "JOIN domain AS m ON m.id = d.domain WHERE m.name = ?", (domain,))


def coach_cache(home):
    return rows(paths(home)["coach"], """
        SELECT 'conversation:' || remoteId, coalesce(title, 'Untitled conversation'), '' FROM conversation
        UNION ALL SELECT 'message:' || remoteId, '', content FROM message""")


def library_cache(home):
    return rows(paths(home)["library"], """
        SELECT 'album:' || ratingKey, title, artist || coalesce(' (' || year || ')', '') FROM album
        UNION ALL SELECT DISTINCT 'collection:' || ratingKey, title, 'collection of ' || childCount || ' albums' FROM collection""")


def store_stamp(database):
    found = rows(database, "SELECT store, revision FROM searchRevision WHERE id = 1")
    return found[0] if found else None


def index_stamps(database):
    return {row[0]: (row[1], row[2]) for row in rows(database, "SELECT domain, store, revision FROM source")}


def difference(index_rows, cache_rows):
    """What the index has that the cache lacks and the other way round, briefly."""
    extra = collections.Counter(index_rows) - collections.Counter(cache_rows)
    missing = collections.Counter(cache_rows) - collections.Counter(index_rows)
    def short(items):
        return [tuple(value[:40] for value in item) for item in list(items)[:3]]
    return (f"index {len(index_rows)} rows, cache {len(cache_rows)}; {sum(extra.values())} only in the index {short(extra)}, "
            f"{sum(missing.values())} only in the cache {short(missing)}")


def copy_index(home, into):
    """The index file and its sidecars copied as they are (a killed process's leftovers
    untouched: the product, not this check, must recover them). Returns the copy's path."""
    source = paths(home)["index"]
    target = os.path.join(into, "index.sqlite")
    for suffix in INDEX_SIDECARS:
        if os.path.exists(target + suffix):
            os.remove(target + suffix)
        if os.path.exists(source + suffix):
            shutil.copyfile(source + suffix, target + suffix)
    return target if os.path.exists(target) else None


def index_state(home):
    """The index's files as they stand: {suffix: (size, mtime_ns, inode)}."""
    state = {}
    for suffix in INDEX_SIDECARS:
        try:
            info = os.stat(paths(home)["index"] + suffix)
            state[suffix] = (info.st_size, info.st_mtime_ns, info.st_ino)
        except FileNotFoundError:
            pass
    return state


def left_state(home, scratch, reference_other):
    """What a killed search left, read from a copy: 'absent', 'complete' (every domain at its
    cache's stamp) or 'behind' (killed mid-build: a domain missing or at an older stamp)."""
    copy = copy_index(home, scratch)
    if copy is None:
        return "absent"
    try:
        stamps = index_stamps(copy)
    except sqlite3.Error:
        return "behind"  # created, not yet migrated
    for domain in ("coach", "library"):
        if stamps.get(domain) != store_stamp(paths(home)[domain]):
            return "behind"
    return "complete" if set(reference_other) <= set(stamps) else "behind"


def index_problems(home, scratch, reference_other):
    """Everything that must hold once a search ran to completion (a list of problems)."""
    problems = []
    where = paths(home)
    if not os.path.exists(where["index"]):
        return ["there is no index after a completed search"]
    # integrity_check of every database and JSON file (index and stores among them).
    problems += [f"{os.path.relpath(path, home)}: {reason}" for path, reason in corrupt_files(home)]
    # FTS5's own check of its structures, on a copy (the command needs a writable database).
    copy = copy_index(home, scratch)
    try:
        connection = sqlite3.connect(copy)
        try:
            connection.execute("INSERT INTO document_text(document_text) VALUES ('integrity-check')")
            orphans = connection.execute("""
                SELECT (SELECT count(*) FROM document WHERE id NOT IN (SELECT rowid FROM document_text)),
                       (SELECT count(*) FROM document_text WHERE rowid NOT IN (SELECT id FROM document)),
                       (SELECT count(*) FROM document WHERE command NOT IN (SELECT id FROM command)),
                       (SELECT count(*) FROM command WHERE id NOT IN (SELECT command FROM document))""").fetchone()
        finally:
            connection.close()
        if orphans != (0, 0, 0, 0):
            problems.append(f"{orphans[0]} documents without text, {orphans[1]} texts without a document, "
                            f"{orphans[2]} documents without their command, {orphans[3]} commands of no document")
    except sqlite3.Error as error:
        problems.append(f"FTS5 integrity-check: {error}")
    # The index equals the caches, row for row, at the caches' stamps.
    try:
        stamps = index_stamps(where["index"])
        for domain, cache in (("coach", coach_cache), ("library", library_cache)):
            index_rows, cache_rows = indexed(home, domain), cache(home)
            if index_rows != cache_rows:
                problems.append(f"{domain}: {difference(index_rows, cache_rows)}")
            expected = store_stamp(where[domain])
            if stamps.get(domain) != expected:
                problems.append(f"{domain}: the index is at stamp {stamps.get(domain)}, the store at {expected}")
        for domain, reference in reference_other.items():
            index_rows = indexed(home, domain)
            if index_rows != reference:
                problems.append(f"{domain}: {difference(index_rows, reference)} (as after a clean build)")
    except sqlite3.Error as error:
        problems.append(f"reading the index or a store: {error}")
    return problems


# --- running brados over a binary that a rebuild may relink ------------------------------------

def retrying(action):
    """Runs action(); a binary missing or being written (a rebuild relinking it) is waited for."""
    for attempt in range(6):
        try:
            return action()
        except OSError as error:
            if error.errno not in (errno.ETXTBSY, errno.ENOENT) or attempt == 5:
                raise
            print(f"  note: the binary is being relinked ({error}); waiting a minute", flush=True)
            time.sleep(60)


def must(profile, *args, stdin=None, timeout=600):
    return retrying(lambda: profile.must(*args, stdin=stdin, timeout=timeout))


def crashed(returncode, stderr):
    return returncode < 0 or any(marker in stderr for marker in CRASH_MARKERS)


# --- the server's side: changes another client makes -------------------------------------------

class Changes:
    """Random changes on the server, and the commands that bring them into the caches."""

    def __init__(self, server, profile, user, clock):
        self.server = server
        self.profile = profile
        self.user = user
        self.clock = clock
        self.plex_at = 1_800_000_000
        self.next = 0
        self.big = None

    def sql(self, statement, *arguments):
        return self.server.admin("POST", "/_admin/sql", {"sql": statement, "arguments": [None if a is None else str(a) for a in arguments]})

    def conversations(self):
        return [row[0] for row in self.sql("SELECT id FROM conversations WHERE user_id = ? ORDER BY updated_at DESC, id", self.user)["rows"]]

    def tick(self):
        self.clock += 1
        return self.clock

    def add_messages(self, conversation, count):
        words = " ".join(random.sample(VOCABULARY, 4))
        self.next += 1
        self.sql("""
            INSERT INTO messages (id, conversation_id, user_id, role, content, created_at)
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < CAST(? AS INTEGER))
            SELECT printf('%s-%08d', ?, i), c.id, c.user_id, 'assistant', ? || ' ' || i, CAST(? AS REAL) + i / 100000.0
            FROM n, conversations AS c WHERE c.id = ?""",
                 count, str(uuid.uuid4()), f"search round {self.next}: {words}", self.tick(), conversation)

    def coach(self):
        """One coach change; returns what it did."""
        conversations = self.conversations()
        others = [c for c in conversations if c != self.big] or conversations
        kind = random.choice(["add", "add", "delete messages", "rename", "new", "delete conversation"])
        if kind == "delete conversation" and len(others) < 5:
            kind = "new"
        target = random.choice(others if kind != "add" or random.random() < 0.5 else [self.big])
        if kind == "add":
            count = random.choice([1, 10, 200, 1000, 3000])
            self.add_messages(target, count)
            must(self.profile, "coach", "show", target)
            return f"{count} messages added to {target[:8]}"
        if kind == "delete messages":
            count = random.choice([1, 20, 300])
            self.sql("DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE conversation_id = ? ORDER BY random() LIMIT CAST(? AS INTEGER))",
                     target, count)
            must(self.profile, "coach", "show", target)
            return f"{count} messages deleted from {target[:8]}"
        if kind == "rename":
            self.next += 1
            self.sql("UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?", f"renamed {self.next} {random.choice(VOCABULARY)}",
                     self.tick(), target)
            must(self.profile, "coach", "conversations")
            return f"{target[:8]} renamed"
        if kind == "new":
            self.next += 1
            created = str(uuid.uuid4())
            at = self.tick()
            self.sql("""INSERT INTO conversations (id, user_id, title, domain, last_message_at, message_count, created_at, updated_at)
                        VALUES (?, ?, ?, 'general', NULL, 0, ?, ?)""", created, self.user, f"new {self.next} protein", at, at)
            self.add_messages(created, random.choice([5, 500]))
            must(self.profile, "coach", "conversations")
            must(self.profile, "coach", "show", created)
            return f"conversation {created[:8]} added"
        self.sql("DELETE FROM messages WHERE conversation_id = ?", target)
        self.sql("DELETE FROM conversations WHERE id = ?", target)
        must(self.profile, "coach", "conversations")
        return f"conversation {target[:8]} deleted"

    def library(self):
        """One library change (a few adds, retitles and deletes at once); returns what it did."""
        keys = [row[0] for row in rows(paths(self.profile.home)["library"], "SELECT ratingKey FROM album")]
        self.plex_at += random.randint(1, 3)
        adds, retitles, deletes = [], {}, []
        for _ in range(random.choice([1, 5, 300])):
            self.next += 1
            adds.append({"ratingKey": str(900_000 + self.next), "title": f"Added {self.next} {random.choice(VOCABULARY)}",
                         "artist": random.choice(["Air", "Björk", "Sigur Rós"]), "year": 2020, "addedAt": self.plex_at})
        for key in random.sample(keys, min(len(keys), random.choice([0, 3, 100]))):
            self.next += 1
            retitles[key] = f"Retitled {self.next} {random.choice(VOCABULARY)}"
        deletes = [key for key in random.sample(keys, min(len(keys), random.choice([0, 2, 50]))) if key not in retitles]
        self.server.admin("POST", "/_admin/plex", {"at": self.plex_at, "add": adds, "retitle": retitles, "delete": deletes, "touch": []})
        must(self.profile, "library", "albums", "--refresh", "--limit", "1")
        return f"library +{len(adds)} ~{len(retitles)} -{len(deletes)}"


# --- 1. kills -----------------------------------------------------------------------------------

def remove_index(home):
    for suffix in INDEX_SIDECARS:
        try:
            os.remove(paths(home)["index"] + suffix)
        except FileNotFoundError:
            pass


def kill_rounds(tally, options, binaries, profile, changes, scratch):
    home = profile.home
    # The full build's time: the window the kills land in.
    samples = []
    for _ in range(2):
        started = time.monotonic()
        must(profile, "search", "--reindex")
        samples.append(time.monotonic() - started)
    window = max(samples) * 1.2
    tally.figures["full build"] = f"{max(samples):.2f} s"
    # The meal plan's and the visits' documents after a clean build: they do not change here.
    reference_other = {domain: indexed(home, domain) for domain in ("mealplan", "visits")}
    problems = index_problems(home, scratch, reference_other)
    if any(not rows_ for rows_ in reference_other.values()):
        problems.append(f"a clean build indexed no meal plan or no visits: {[d for d, r in reference_other.items() if not r]}")
    if problems:
        tally.fail(f"after a clean build: {problems[:4]}")
        return reference_other

    delays, outcomes = [], collections.Counter()
    running_at_kill = 0
    for round_index in range(options.rounds):
        kind = random.choice(["remove", "reindex", "change", "change"])
        what = []
        if kind == "change":
            if random.random() < 0.7:
                what.append(changes.coach())
            if random.random() < 0.5 or not what:
                what.append(changes.library())
            if random.random() < 0.3:
                remove_index(home)
                what.append("index removed")
        elif kind == "remove":
            remove_index(home)
            what.append("index removed")
        args = ["search", "--reindex"] if kind == "reindex" else ["search", "protein"]
        what.append(" ".join(args))

        before = index_state(home)
        delay = random.uniform(0, window)
        process = retrying(lambda: profile.spawn(*args))
        time.sleep(delay)
        running = process.poll() is None
        kill_group(process)
        running_at_kill += running
        delays.append(delay)
        if not running:
            left = "finished"
        elif index_state(home) == before:
            left = "untouched"
        else:
            left = left_state(home, scratch, reference_other)
        outcomes[left] += 1

        completed = retrying(lambda: profile.run("search", "zzzz", timeout=600))
        problems = []
        if completed.returncode != 0 or crashed(completed.returncode, completed.stderr):
            problems.append(f"`search zzzz` after the kill exited {completed.returncode}: {completed.stderr.strip()[:300]!r}")
        problems += index_problems(home, scratch, reference_other)
        label = f"round {round_index} ({'; '.join(what)}; killed after {delay * 1000:.0f} ms, {'running' if running else 'already done'}, index {left})"
        if problems:
            tally.fail(f"{label}: {problems[:4]}")
        else:
            tally.ok()
        print(f"  {label}: {'FAIL' if problems else 'ok'}", flush=True)

    tally.figures["kills"] = len(delays)
    tally.figures["kills while running"] = running_at_kill
    tally.figures["kills that left the index behind the caches (mid-build)"] = outcomes["behind"]
    tally.figures["kills that left it complete"] = outcomes["complete"]
    tally.figures["kills that left no index"] = outcomes["absent"]
    tally.figures["kills before it touched the index"] = outcomes["untouched"]
    if delays:
        tally.figures["kill delays (ms, min/median/max)"] = (f"{min(delays) * 1000:.0f}/{statistics.median(delays) * 1000:.0f}/"
                                                            f"{max(delays) * 1000:.0f}")
    return reference_other


# --- 2. hostile queries ---------------------------------------------------------------------------

FRAGMENTS = ['"', '""', '(', ')', '((', '))', ' OR ', ' AND ', ' NOT ', 'OR', 'AND', 'NOT', 'NEAR(', 'NEAR', 'NEAR/', ', 5)', ',', '5',
             '-1', '99999999999999999999', '*', '**', '^', '^^', ':', 'title:', 'body:', 'rank:', 'rowid:', '{title body}:', '{', '}',
             '-title:', '- {title}:', '+', '-', "'", '\\', '%', '_', ';', '--', '/*', '*/', '\t', '\n', '\r', '\x01', '\x02',
             '\x1b[31m', '\x7f', '\u200b', '\ufeff', '\u202e', '🍣', 'ß', 'İ', 'café', 'protein', 'blue', 'train', 'marathon',
             'a' * 300, 'ǅ', '日本語', 'x' * 5, 'SELECT', 'MATCH', 'ORDER BY', 'null', '0', '\u0301', 'fts5', 'rank', 'bm25(']
HOSTILE_DOMAINS = ["coach", "library", "mealplan", "visits"]


WORDS = ["protein", "blue", "train", "café", "message", "round", "search", "added", "renamed", "air", "a", "e", "1", "日本語"]


def random_expression(rng, depth=0):
    """A query from FTS5's grammar (mostly valid): phrases, prefixes, column filters, ^,
    NEAR groups, AND/OR/NOT and parentheses, nested."""
    choice = rng.randint(0, 9 if depth < 6 else 3)
    word = rng.choice(WORDS)
    if choice == 0:
        return word
    if choice == 1:
        return word[:rng.randint(1, len(word))] + "*"
    if choice == 2:
        return '"' + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))).replace('"', '""') + '"'
    if choice == 3:
        return rng.choice(["title:", "body:", "{title body}:", "-title:", "- {body}:"]) + rng.choice(["", "^"]) + word
    if choice == 4:
        return f"NEAR({' '.join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))}{rng.choice(['', ', 0', ', 3', ', 100'])})"
    if choice in (5, 6):
        return random_expression(rng, depth + 1) + rng.choice([" AND ", " OR ", " NOT ", " "]) + random_expression(rng, depth + 1)
    if choice == 7:
        return "(" + random_expression(rng, depth + 1) + ")"
    return "^" + word


def random_query(rng):
    """Half from the grammar (some with a fragment spliced in), half fragments at random."""
    if rng.random() < 0.5:
        query = random_expression(rng)
        if rng.random() < 0.3:
            at = rng.randint(0, len(query))
            query = query[:at] + rng.choice(FRAGMENTS) + query[at:]
        return query
    parts = [rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 40))]
    return "".join(part + rng.choice(["", " ", " ", "  "]) for part in parts)


def hostile_queries(options):
    """(label, argv after `search`, as bytes or text) of every hostile query."""
    rng = random.Random(options.seed + 1)
    words = " ".join(rng.choice(VOCABULARY[:12]) for _ in range(2000))[:10240]
    cases = [
        ("10 KB of words", [words]),
        ("10 KB of one word that matches (protein)", ["protein " * 1280]),
        ("10 KB of words, -F", ["-F", "--", words]),
        ("10 KB of words as 1,000 arguments", ["--"] + words.split(" ")[:1000]),
        ('10 KB of "(', ['"(' * 5120]),
        ("10 KB of (", ["(" * 10240]),
        ("10 KB of )", [")" * 10240]),
        ("10 KB of a OR NOT", ["a OR NOT " * 1137 + "b"]),
        ("10 KB of NOT", ["a" + " NOT a" * 1700]),
        ("10 KB of unbalanced NEAR(", ['NEAR(' * 2048]),
        ('10 KB of NEAR("', ['NEAR("' * 1700]),
        ("10 KB of nested parentheses", ["(" * 5000 + "a" + ")" * 5000]),
        ("10 KB of *", ["*" * 10240]),
        ("10 KB of title:", ["title:" * 1700]),
        ("10 KB of ^", ["^" * 10240]),
        ("10 KB of quotes", ['"' * 10240]),
        ("10 KB of alternating quotes and words", ['"a" "' * 2000]),
        ("10 KB of column filters", ["{title body}: " * 700 + "a"]),
        ("10 KB of prefix stars", ["a* " * 3400]),
        ("10 KB, one word", ["a" * 10240]),
        ("10 KB of NEAR groups", ["NEAR(a b, 10) " * 700]),
        ("10 KB of operators, -F", ["-F", "--", 'a OR NOT "( NEAR( * title: ^ ' * 400]),
        ("a prefix most documents match (s*)", ["--", "s*"]),
        ("a prefix most documents match, one domain (--domain library a*)", ["--domain", "library", "--", "a*"]),
        ("a prefix most documents match, one domain (--domain coach s*)", ["--domain", "coach", "--", "s*"]),
        ("NEAR(", ["NEAR("]),
        ('NEAR("', ['NEAR("']),
        ("NEAR(a b, -5)", ["NEAR(a b, -5)"]),
        ("NEAR(a b, 99999999999999999999)", ["NEAR(a b, 99999999999999999999)"]),
        ("*", ["*"]),
        ("title:", ["title:"]),
        ("nosuchcolumn:a", ["nosuchcolumn:a"]),
        ("^", ["^"]),
        ("^a", ["^a"]),
        ("AND OR", ["AND OR"]),
        ("-", ["-"]),
        ("a --json (as query)", ["--", "a", "--json"]),
        ("empty", [""]),
        ("whitespace", [" \t\n "]),
        ("control characters", ["".join(chr(c) for c in range(1, 32)) + "\x7f"]),
        ("control characters around a word", ["\x1b[2J\x1b]0;title\x07protein\x08\x08"]),
        ("match marks", ["\x01protein\x02"]),
        ("bidi and zero-width", ["\u202eprotein\u202c\u200b\ufeff"]),
        ("combining marks", ["e" + "\u0301" * 5000]),
        ("invalid UTF-8", [b"\xff\xfe\xfd"]),
        ("invalid UTF-8 in a word", [b"prot\xc3\x28ein"]),
        ("overlong and surrogate UTF-8", [b"\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80"]),
        ("truncated UTF-8 quote", [b'"\xe6\x97\xa5']),
        ("invalid UTF-8, -F", ["-F", "--", b"\x80\x81\x82 protein"]),
        ("10 KB of invalid UTF-8", [b"\xff" * 10240]),
    ]
    for number in range(options.random_queries):
        query = random_query(rng)
        flags = []
        # Words as typed (the default), -F (the same, said), or FTS5 query syntax.
        mode = rng.random()
        if mode < 0.15:
            flags.append("-F")
        elif mode >= 0.35:
            flags.append("--syntax")
        if rng.random() < 0.25:
            flags.append("--json")
        if rng.random() < 0.25:
            flags += ["--domain", rng.choice(HOSTILE_DOMAINS)]
        if rng.random() < 0.15:
            flags += ["--limit", str(rng.choice([1, 1000]))]
        if rng.random() < 0.1:
            argv = query.split(" ")  # as several arguments
        else:
            argv = [query]
        cases.append((f"random {number}: {query[:40]!r}", flags + ["--"] + argv))
    return cases


def run_queries(tally, options, binaries, profile):
    exits = collections.Counter()
    slowest = (0.0, "")
    for label, argv in hostile_queries(options):
        if "--" not in argv and "-F" not in argv:
            argv = ["--"] + argv  # a query that starts with a dash is a query, not a flag
        if "-F" not in argv and "--syntax" not in argv and not label.startswith("random"):
            # The fixed cases are FTS5 query syntax at its worst; the random ones choose their mode.
            argv = ["--syntax"] + argv
        command = [binaries.brados.encode(), b"search"] + [a if isinstance(a, bytes) else a.encode("utf-8", "surrogatepass") for a in argv]
        environment = {key.encode(): value.encode() for key, value in profile.env.items()}
        started = time.monotonic()
        try:
            result = retrying(lambda: subprocess.run(command, capture_output=True, env=environment, timeout=QUERY_TIMEOUT))
        except subprocess.TimeoutExpired:
            exits["timeout"] += 1
            tally.fail(f"{label}: no answer within {QUERY_TIMEOUT} s")
            continue
        seconds = time.monotonic() - started
        slowest = max(slowest, (seconds, label))
        stderr = result.stderr.decode("utf-8", "replace")
        exits[str(result.returncode)] += 1
        problems = []
        if crashed(result.returncode, stderr):
            problems.append(f"crashed (exit {result.returncode})")
        elif result.returncode not in (0, 64):
            problems.append(f"exit {result.returncode}, expected 0 or 64")
        elif result.returncode == 64 and "FTS5" not in stderr and "query" not in stderr:
            problems.append("exit 64 without saying why (no 'FTS5' or 'query' on stderr)")
        if result.returncode == 0 and "--json" in argv:
            try:
                json.loads(result.stdout)
            except ValueError as error:
                problems.append(f"--json printed what does not parse: {error}")
        if problems:
            tally.fail(f"{label}: {problems}; stderr: {stderr.strip()[:300]!r}")
        else:
            tally.ok()
    tally.figures["queries"] = sum(exits.values())
    tally.figures["query exits"] = dict(sorted(exits.items()))
    tally.figures["slowest answered query"] = f"{slowest[0]:.2f} s ({slowest[1]})"


def main():
    parser = suite_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=50, help="kills mid-index")
    parser.add_argument("--messages", type=int, default=20000, help="the server's --seed-messages")
    parser.add_argument("--conversations", type=int, default=40, help="the server's --seed-conversations")
    parser.add_argument("--albums", type=int, default=20000, help="the server's --seed-albums")
    parser.add_argument("--random-queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=33)
    options = parser.parse_args()
    random.seed(options.seed)
    binaries = Binaries(options.build_dir, options.configuration)
    tally = Tally("search")
    seeds = ["--seed-messages", str(options.messages), "--seed-conversations", str(options.conversations),
             "--seed-albums", str(options.albums)]
    scratch = tempfile.mkdtemp(prefix="brados-rel-search-")
    with Server(binaries, arguments=seeds) as server:
        profile = Profile(binaries, server)
        try:
            retrying(lambda: profile.login(supabase_email="demo@example.com"))
            listing = json.loads(must(profile, "coach", "conversations", "--json").stdout)["conversations"]
            for conversation in listing:
                must(profile, "coach", "show", conversation["id"])
            must(profile, "library", "albums", "--refresh", "--limit", "1")
            must(profile, "mealplan", "show")
            must(profile, "visits", "list")
            changes = Changes(server, profile, listing[0]["userId"], time.time() + 10)
            changes.big = max(listing, key=lambda c: c.get("messageCount", 0))["id"]
            tally.figures["documents"] = sum(len(f(profile.home)) for f in (coach_cache, library_cache))

            reference_other = kill_rounds(tally, options, binaries, profile, changes, scratch)
            run_queries(tally, options, binaries, profile)

            # The queries changed nothing: the index still equals the caches.
            completed = retrying(lambda: profile.run("search", "zzzz", timeout=600))
            problems = index_problems(profile.home, scratch, reference_other)
            if completed.returncode != 0:
                problems.append(f"`search zzzz` exited {completed.returncode}: {completed.stderr.strip()[:200]!r}")
            if problems:
                tally.fail(f"after the hostile queries: {problems[:4]}")
        finally:
            profile.remove()
            shutil.rmtree(scratch, ignore_errors=True)

    tally.figures["rounds"] = options.rounds
    result = tally.report()
    print(json.dumps(result))
    sys.exit(1 if tally.failures else 0)


if __name__ == "__main__":
    main()
