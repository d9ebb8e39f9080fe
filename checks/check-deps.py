#!/usr/bin/env python3
"""What brados needs from the machine, against what scripts/ensure-deps.sh installs: the code
behind checks/check-deps.sh (read its usage there). One line per gap, naming the package to add.

A need is met by a package ensure-deps names, or by the machine: Debian's Essential and
Priority: required packages, the packages ensure-deps lists as the machine's and what they depend
on, the Swift toolchain in /opt/swift and the machine's CPython. Besides:
- a command may come from a package a named one depends on (python3 brings python3-minimal);
- a library may come from the package a named -dev package depends on (libpng-dev brings
  libpng16-16): that is how the headers and the library they describe are installed together.
Nothing else counts, so removing any package from ensure-deps's list shows here.
"""
import argparse
import ast
import glob
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "packaging"))
import depends  # noqa: E402  (the binary's dlopen note, sonames to paths to packages)
import releases  # noqa: E402  (the host release's Contents index: who ships a missing file)

SWIFT_TOOLCHAIN = "/opt/swift"
# Where the machine's own CPython lives (pyenv's, or wherever the interpreter running this was
# installed apart from the system): never /usr or /usr/local, where Debian's packages are.
MACHINE_PYTHON = tuple(path for path in dict.fromkeys([os.path.realpath(sys.base_prefix), os.path.expanduser("~/.pyenv")])
                       if path not in ("/", "/usr", "/usr/local"))


class Gaps:
    """The gaps found, one line per thing missing (at the first place that uses it)."""

    def __init__(self, verbose=False):
        self.lines = []
        self.keys = set()
        self.verbose = verbose
        self.met = {}  # what -> (package or place, first where)

    def ok(self, what, source, where):
        if self.verbose and what not in self.met:
            self.met[what] = (source, where)

    def add(self, line, key=None):
        key = key or line
        if key not in self.keys:
            self.keys.add(key)
            self.lines.append(line)
            print(line, flush=True)


# --- what is installed, and what ensure-deps declares -----------------------------------------

class Dpkg:
    """The installed packages (dpkg's status file) and which file each ships (its .list files)."""

    def __init__(self):
        self.packages = {}
        text = open("/var/lib/dpkg/status", encoding="utf-8", errors="replace").read()
        for stanza in text.split("\n\n"):
            fields = dict(re.findall(r"^([\w-]+): ?(.*)$", stanza, re.M))
            name = fields.get("Package")
            if name and fields.get("Status", "").endswith(" installed"):
                self.packages[name] = fields
        self.provided = {}
        for name, fields in self.packages.items():
            for item in filter(None, (p.strip() for p in fields.get("Provides", "").split(","))):
                self.provided.setdefault(item.split()[0], name)

    @staticmethod
    def owner(path):
        """The installed package that ships `path`, or None (packaging/depends.py's lookup)."""
        return depends.package_of(path)

    def depends(self, name):
        """The installed packages `name` depends on directly (Depends, Pre-Depends)."""
        found = set()
        fields = self.packages.get(name, {})
        for field in ("Depends", "Pre-Depends"):
            for group in filter(None, (g.strip() for g in fields.get(field, "").split(","))):
                for alternative in group.split("|"):
                    dependency = alternative.split()[0].split(":")[0]
                    dependency = dependency if dependency in self.packages else self.provided.get(dependency)
                    if dependency:
                        found.add(dependency)
                        break
        return found

    def closure(self, names):
        seen, stack = set(), [n for n in names if n in self.packages]
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack.extend(self.depends(name) - seen)
        return seen


class Declared:
    """ensure-deps's list, and what each named package lets count as installed. Its groups
    matter: what a kind of work runs must come from the groups `scripts/ensure-deps.sh` installs
    for it (make test runs plain ensure-deps: build and test; make bench adds bench; ...)."""

    # Where a file's needs are met from: the groups ensure-deps installs for the work it is part of.
    SCOPES = [
        (("bench/",), {"build", "test", "bench"}),
        (("reliability/",), {"build", "test", "reliability"}),
        (("packaging/package.sh", "packaging/check-package.sh", "packaging/"), {"build", "test", "package"}),
        ((".ci/run", "checks/check-plexapi.py", "checks/check-supabase.py", "checks/check-age-pq.py", "checks/check-calendar.py"), None),  # all
    ]
    DEFAULT_GROUPS = {"build", "test"}

    def __init__(self, dpkg):
        listing = subprocess.run([os.path.join(ROOT, "scripts", "ensure-deps.sh"), "--list"],
                                 capture_output=True, text=True, check=True).stdout
        self.groups, self.pip, machine = {}, {}, set()  # apt package -> group
        for line in listing.splitlines():
            kind, group, name = line.split()
            if kind == "apt":
                self.groups[name] = group
            elif kind == "pip":
                self.pip[normalize(name.split("==")[0])] = group
            elif kind == "machine":
                machine.add(name)
        self.apt = set(self.groups)
        base = {name for name, fields in dpkg.packages.items()
                if fields.get("Essential") == "yes" or fields.get("Priority") == "required"}
        self.machine = dpkg.closure(base | machine)
        self.dpkg = dpkg

    def named(self, where, kind="apt"):
        """The packages (apt's, or pip's) ensure-deps installs for what runs at `where` (a path, relative)."""
        groups = next((groups for prefixes, groups in self.SCOPES if where.startswith(prefixes)), self.DEFAULT_GROUPS)
        listed = self.groups if kind == "apt" else self.pip
        return {name for name, group in listed.items() if groups is None or group in groups}

    def meets(self, package, need, where):
        """Whether an installed `package` meets a need of kind `need` (header, command, library)
        found at `where`."""
        named = self.named(where)
        if package in named or package in self.machine:
            return True
        if need == "command":
            return any(package in self.dpkg.depends(name) for name in named)
        if need == "library":
            return any(package in self.dpkg.depends(name) for name in named if name.endswith("-dev"))
        return False


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def machine_path(path):
    real = os.path.realpath(path)
    return real.startswith(SWIFT_TOOLCHAIN + "/") or any(real.startswith(p + "/") for p in MACHINE_PYTHON)


def relative(path):
    return os.path.relpath(path, ROOT)


def shipped_by(pattern):
    """Who ships a file matching `pattern` in the host's release (its Contents index), as text."""
    try:
        found = releases.owner(pattern)
    except SystemExit as error:  # the archive unreachable: say so instead
        return f"(the archive could not be asked: {error})"
    return " or ".join(found[:3]) if found else "(no package of the host's release ships it)"


def judge(gaps, dpkg, declared, need, what, path, where):
    """Checks one thing found at `path`: from a package ensure-deps names, or the machine's."""
    if machine_path(path) or os.path.realpath(path).startswith(ROOT + "/"):
        gaps.ok(what, "the machine's toolchain" if machine_path(path) else "the project", where)
        return
    package = dpkg.owner(path)
    if package is not None and declared.meets(package, need, where):
        gaps.ok(what, package + (" (named)" if package in declared.apt else " (machine)" if package in declared.machine
                                 else " (a named package's dependency)"), where)
    if package is None:
        gaps.add(f"{what} ({where}) is {path}, which no Debian package ships: installed by hand? "
                 f"Add the package that ships it to scripts/ensure-deps.sh", key=(what, path))
    elif not declared.meets(package, need, where):
        if package in declared.apt:
            gaps.add(f"{what} ({where}) comes from {package}, which scripts/ensure-deps.sh installs only for "
                     f"'{declared.groups[package]}': move it to a group that work installs", key=(what, package))
            return
        gaps.add(f"{what} ({where}) comes from {package}, which scripts/ensure-deps.sh does not install: add {package}",
                 key=(what, package))


# --- headers ------------------------------------------------------------------------------------

def c_inputs():
    """(file to preprocess, include folders, who includes it): the project's C targets, and the
    headers of every system module map, the project's and its packages' (GRDB's SQLite)."""
    inputs = []
    # A C target may include the public headers of the C targets it depends on (CLoadOnce.h):
    # the project's own, never a system package's.
    project_includes = sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "include")))
    for source in sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "**", "*.c"), recursive=True)):
        target = os.path.join(ROOT, "Sources", relative(source).split(os.sep)[1])
        inputs.append((source, [os.path.join(target, "include"), target] + project_includes, relative(source)))
    maps = glob.glob(os.path.join(ROOT, "Sources", "*", "module.modulemap"))
    maps += glob.glob(os.path.join(ROOT, ".build", "checkouts", "*", "**", "module.modulemap"), recursive=True)
    links = []
    for modulemap in sorted(maps):
        text = open(modulemap).read()
        if "[system]" not in text and "link " not in text:
            continue
        folder = os.path.dirname(modulemap)
        for header in re.findall(r'(?:umbrella\s+)?header\s+"([^"]+)"', text):
            inputs.append((os.path.join(folder, header), [folder], relative(modulemap)))
        links += [(name, relative(modulemap)) for name in re.findall(r'link\s+"([^"]+)"', text)]
    manifest = open(os.path.join(ROOT, "Package.swift")).read()
    links += [(name, "Package.swift") for name in re.findall(r'\.linkedLibrary\("([^"]+)"', manifest)]
    return inputs, links


def check_headers(gaps, dpkg, declared):
    inputs, links = c_inputs()
    for source, folders, who in inputs:
        command = ["gcc", "-E", "-M", "-MG"] + [f"-I{folder}" for folder in folders] + [source]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            gaps.add(f"{who}: gcc -M could not read it: {result.stderr.strip().splitlines()[-1:]}")
            continue
        for dependency in result.stdout.replace("\\\n", " ").split(":", 1)[1].split():
            if not os.path.isabs(dependency):
                if not os.path.exists(os.path.join(os.path.dirname(source), dependency)):
                    # -MG: a header not found anywhere is listed as written.
                    pattern = r"/usr/include/(?:[^/]+-linux-gnu/)?" + re.escape(dependency) + "$"
                    gaps.add(f"header <{dependency}> ({who}) is not installed: add {shipped_by(pattern)}", key=dependency)
                continue
            if not dependency.startswith(ROOT + "/"):
                judge(gaps, dpkg, declared, "header", f"header <{header_name(dependency)}>", dependency, who)
    for name, who in links:
        for suffix in (".so", ".a"):  # glibc's libdl is only a static stub since 2.34
            path = subprocess.run(["gcc", f"-print-file-name=lib{name}{suffix}"], capture_output=True, text=True).stdout.strip()
            if os.path.isabs(path):
                path = os.path.normpath(path)
                break
        if not os.path.isabs(path):
            pattern = r"/lib/(?:[^/]+-linux-gnu/)?lib" + re.escape(name) + r"\.so$"
            gaps.add(f"library -l{name} ({who}) is not installed: add {shipped_by(pattern)}")
        else:
            judge(gaps, dpkg, declared, "header", f"library -l{name}", path, who)


def header_name(path):
    match = re.search(r"/include/(?:[^/]+-linux-gnu/)?(.+)$", path)
    return match.group(1) if match else path


# --- libraries the binary loads ----------------------------------------------------------------

def deb_relations(deb):
    """{field: [[alternative package names] per group]} of a built .deb."""
    fields = {}
    for field in ("Depends", "Recommends", "Suggests"):
        value = subprocess.run(["dpkg-deb", "-f", deb, field], capture_output=True, text=True, check=True).stdout
        fields[field] = [[alternative.split()[0] for alternative in group.split("|")]
                         for group in value.split(",") if group.strip()]
    return fields


def needed(binary):
    """The sonames `binary` names itself (DT_NEEDED): what dpkg-shlibdeps puts in Depends."""
    listing = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", listing))


def check_libraries(gaps, dpkg, declared, binary, deb):
    """Every library `binary` loads (ldd: the ones it names and theirs; its dlopen note) comes
    from a package ensure-deps installs; with `deb`, the ones it names or opens are in the
    package's relations, in the field their priority asks for."""
    name = relative(binary) if binary.startswith(ROOT) else binary
    direct = needed(binary)
    loaded = []  # (soname, path, the field the .deb must name it in or None, how)
    result = subprocess.run(["ldd", binary], capture_output=True, text=True)
    for line in result.stdout.splitlines():
        match = re.match(r"\s*(\S+) => (\S+)", line) or re.match(r"\s*(/\S+) \(", line)
        if match is None:
            continue
        soname, path = (match.group(1), match.group(2)) if match.lastindex == 2 else (os.path.basename(match.group(1)), match.group(1))
        how = "links" if soname in direct else "loads it for a library it links"
        if path == "not":
            gaps.add(f"{soname} ({name} {how}) is not installed: add {shipped_by(re.escape('/' + soname) + chr(36))}", key=soname)
            continue
        loaded.append((soname, path, "Depends" if soname in direct else None, how))
    for entry in depends.dlopen_notes(binary):
        field = depends.relation_field(entry)
        for soname in entry.get("soname", []):
            path = depends.library_path(soname)
            how = f"opens it: {entry.get('feature')}"
            if path is None:
                gaps.add(f"{soname} ({name} {how}) is not installed: add {shipped_by(re.escape('/' + soname) + chr(36))}", key=soname)
                continue
            loaded.append((soname, path, field, how))
    relations = deb_relations(deb) if deb else None
    for soname, path, field, how in loaded:
        judge(gaps, dpkg, declared, "library", soname, path, f"{name} {how}")
        if relations is None or field is None or machine_path(path):
            continue
        package = dpkg.owner(path)
        if package is None:
            continue
        # The .deb names it (or an alternative of it) in the field its priority asks for;
        # Depends satisfies any (a library in Depends is always there).
        wanted = ["Depends"] if field == "Depends" else ["Depends", field]
        if not any(package in group for f in wanted for group in relations[f]):
            gaps.add(f"{soname} ({name} {how}) comes from {package}, which {os.path.basename(deb)} does not name in "
                     f"{' or '.join(wanted)}: package.sh computes it (dpkg-shlibdeps, packaging/depends.py)")


# --- commands and Python modules the scripts run -----------------------------------------------

SCRIPT_DIRS = ["bench", "reliability", "scripts", "checks", "packaging", "Tests"]
SHELL_WORDS = set("""if then else elif fi for in do done while until case esac function return exit local export
set unset shift trap source . eval exec command builtin type hash echo printf read cd pwd test [ [[ ]] true false
: wait kill declare readonly shopt let break continue umask getopts jobs fg bg time select ! { } ( ) mapfile alias""".split())
RUNNERS = {"run", "Popen", "check_output", "check_call", "call"}  # subprocess's


def commands_in_python(text, where):
    """(command, line) pairs a Python file runs: the first word of an argv given to subprocess,
    and whatever shutil.which or the suites' require() is asked; names bound by iterating a
    literal tuple are followed."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    constants = {}  # name -> [strings] for NAME = ("a", "b") and for-loop targets over them

    def strings(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List)):
            found = []
            for element in node.elts:
                found += strings(element) if isinstance(element, ast.Constant) else \
                    (strings(element.elts[0]) if isinstance(element, (ast.Tuple, ast.List)) and element.elts else [])
            return found
        if isinstance(node, ast.Name):
            return constants.get(node.id, [])
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, (ast.Tuple, ast.List)):
            constants[node.targets[0].id] = strings(node.value)
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)):
            target = node.target
            if isinstance(target, ast.Tuple) and target.elts:
                target = target.elts[0]
            if isinstance(target, ast.Name) and strings(node.iter):
                constants.setdefault(target.id, strings(node.iter))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        module = getattr(node.func.value, "id", None) if isinstance(node.func, ast.Attribute) else None
        first = node.args[0]
        if function in ("which", "require"):
            found += [(name, node.lineno) for name in strings(first)]
        elif function in RUNNERS and module == "subprocess":
            if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
                found += [(name.split()[0], node.lineno) for name in strings(first.elts[0]) if name.strip()]
            elif isinstance(first, ast.Constant) and isinstance(first.value, str) and \
                    any(k.arg == "shell" for k in node.keywords) and first.value.strip():
                found.append((first.value.split()[0], node.lineno))
    return found


def modules_in_python(text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module.split(".")[0], node.lineno))
    return found


def commands_in_swift(text):
    """(command, line) pairs a Swift test runs: SystemCommand.url("x") and .run("x", …), a
    fileURLWithPath: "/usr/bin/x"; and where SystemCommand is given a name held in a variable,
    the names a parameterized test passes (@Test(…, arguments: ["bash", "zsh", "fish"]))."""
    found = []
    for pattern in (r'SystemCommand\.(?:url|run)\(\s*"([\w.+-]+)"', r'fileURLWithPath:\s*"(/[\w/.+-]*/s?bin/[\w.+-]+)"'):
        for match in re.finditer(pattern, text):
            found.append((match.group(1), text.count("\n", 0, match.start()) + 1))
    if re.search(r'SystemCommand\.(?:url|run)\(\s*[^"\s]', text):
        for match in re.finditer(r'@Test\([^@]*?arguments:\s*\[([^\]]*)\]', text, re.S):
            for name in re.findall(r'"([\w.+-]+)"', match.group(1)):
                found.append((name, text.count("\n", 0, match.start()) + 1, "maybe"))
    return found


def swift_command(name):
    """Where the tests' SystemCommand finds `name` (Tests/TestSupport/SystemCommand.swift)."""
    for folder in ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"):
        if os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    return None


SOURCED = re.compile(r"^\s*(?:\.|source)\s+([\w./-]+\.sh)\s*$", re.M)


def shell_functions(path):
    """The functions a shell script defines, with those of the scripts it sources (`. FILE`,
    relative to the project) and of the scripts that source it: they share one shell."""
    def defined(text):
        return set(re.findall(r"^\s*([\w-]+)\s*\(\)", text, re.M))
    text = open(path, encoding="utf-8", errors="replace").read()
    functions = defined(text)
    for sourced in SOURCED.findall(text):
        other = os.path.join(ROOT, sourced)
        if os.path.exists(other):
            functions |= defined(open(other, encoding="utf-8", errors="replace").read())
    for other in script_files():
        if other != path and kind_of(other) == "shell" and os.path.basename(other) != "Makefile":
            other_text = open(other, encoding="utf-8", errors="replace").read()
            if any(os.path.join(ROOT, sourced) == path for sourced in SOURCED.findall(other_text)):
                functions |= defined(other_text)
    return functions


def commands_in_shell(text, makefile=False, functions=()):
    """(command, line) pairs of the words in command position of a shell script or a Makefile's
    recipes, outside quotes, comments, arithmetic and here-documents (a Python one, <<'PY', is
    read as Python). `functions`: more names that are functions, not commands (a sourced file's)."""
    if makefile:  # recipe lines only; make's $(shell …) runs its text, its $(VAR) is a variable
        def recipe(line):
            line = re.sub(r"\$\(shell\s+", "\0(", line[1:].lstrip("@-"))
            while True:  # innermost first: $(notdir $(X)) is a variable too
                simpler = re.sub(r"\$\((\w+)[^()]*\)", r"$\1", line)
                if simpler == line:
                    return line.replace("\0(", "$(")
                line = simpler
        text = "\n".join(recipe(line) if line.startswith("\t") else "" for line in text.split("\n"))
    functions = set(re.findall(r"^\s*([\w-]+)\s*\(\)", text, re.M)) | set(functions)
    tokens, python = tokenize(text)
    found = [(word, line) for word, line in command_words(tokens) if word not in functions]
    for body, first_line in python:
        found += [(name, first_line + line) for name, line in commands_in_python(body, None)]
    return found, python


def tokenize(text):
    """The shell words and operators of `text` as (token, line), newlines as ";"; a quoted word
    is opaque (it starts with a quote mark) but for a $(…) inside double quotes, which is code.
    Also returns the bodies of <<'PY' here-documents with their first line."""
    tokens, python, word, quote, line = [], [], "", [], 1
    heredocs, index, depth = [], 0, []  # depth: what each open $( is nested in (a quote or not)

    def push(token=None):
        nonlocal word
        if word:
            tokens.append((word, line))
            word = ""
        if token:
            tokens.append((token, line))

    while index < len(text):
        char = text[index]
        inside = quote[-1] if quote else None
        if inside == "'":
            if char == "'":
                quote.pop()
            line += char == "\n"
            index += 1
            continue
        if inside == '"':
            if char == "\\":
                index += 2
                continue
            if char == '"':
                quote.pop()
            elif text.startswith("$(", index) and not text.startswith("$((", index):
                push("$(")
                depth.append('"')
                quote.append(None)  # code until its )
                index += 2
                continue
            line += char == "\n"
            index += 1
            continue
        # code
        if char == "\\" and index + 1 < len(text):
            if text[index + 1] == "\n":
                line += 1
            else:
                word += text[index + 1]
            index += 2
            continue
        if char in "'\"":
            word += '"'
            quote.append(char)
        elif char == "#" and not word:
            while index < len(text) and text[index] != "\n":
                index += 1
            continue
        elif char == "\n":
            push(";")
            line += 1
            index += 1
            for delimiter, strip in heredocs:  # here-documents start on the next line
                body, first = [], line
                while index < len(text):
                    end = text.find("\n", index)
                    end = len(text) if end < 0 else end
                    current = text[index:end]
                    index, line = end + 1, line + 1
                    if (current.strip() if strip else current) == delimiter:
                        break
                    body.append(current)
                if delimiter == "PY":
                    python.append(("\n".join(body), first - 1))
            heredocs = []
            continue
        elif text.startswith("<<", index) and not text.startswith("<<<", index):
            match = re.match(r"<<(-?)\s*(['\"]?)(\w+)\2", text[index:])
            if match:
                heredocs.append((match.group(3), bool(match.group(1))))
                push()
                index += match.end()
                continue
            word += "<<"
            index += 2
            continue
        elif text.startswith("$((", index):  # arithmetic: no command in it
            close = text.find("))", index)
            word += "0"
            index = len(text) if close < 0 else close + 2
            continue
        elif text.startswith("${", index):  # a parameter expansion: part of the word
            close = text.find("}", index)
            word += "$" + (text[index + 2:close] if close > 0 else "")
            index = len(text) if close < 0 else close + 1
            continue
        elif text.startswith("$(", index):
            push("$(")
            depth.append(None)
            index += 2
            continue
        elif char == "(" and depth:  # a subshell inside $(…): its ) is not the end
            push("(")
            depth.append("(")
        elif char == ")" and depth:
            push(")")
            if depth.pop() == '"' and quote and quote[-1] is None:
                quote.pop()
        elif char.isspace():
            push()
        elif text.startswith(("&&", "||", ";;"), index):
            push(text[index:index + 2])
            index += 2
            continue
        elif char in "|;(){}`&":
            push(char)
        else:
            word += char
        index += 1
    push()
    return tokens, python


# Words after which the next word is a command; wrappers whose command runs in a clean root
# (packaging/check-package.sh's in_root, as_user, shows) end the search up to the next ";".
STARTERS = {"|", "||", "&&", ";", "&", "(", "{", "$(", "`", "then", "do", "else", "elif", "if", "while", "until", "!",
            "exec", "time", "sudo", "$SUDO", "command", "xargs", "nice", "nohup", "env", "eval"}
ARGUMENTS_FIRST = {"check": 1, "logged": 1, "timeout": 1}
IN_ROOT = {"in_root", "as_user", "shows", "chroot"}
PRODUCTS = {"brados", "brados-server", "brados-fuzz", "brados-bench", "brados-contract"}


def command_words(tokens):
    position, skip, in_root, case = True, 0, False, None  # case: None, "word" (before in), "pattern"
    for token, line in tokens:
        if token == ";" or token in ("|", "||", "&&", "&"):
            in_root = False
        if case == "word":
            case = "pattern" if token == "in" else "word"
            continue
        if case == "pattern":
            if token == "esac":
                case = None
            elif token == ")":
                case, position = "body", True
            continue
        if token == ";;":
            case = "pattern"
            continue
        if token == "esac":
            case = None
            continue
        if skip:
            skip -= 1
            continue
        if token in STARTERS:
            position = True
            continue
        if not position or in_root:
            continue
        if re.match(r"^\w+=", token):  # VAR=value before a command
            continue
        if token.startswith("-"):
            continue
        position = False
        if token == "case":
            case = "word"
            continue
        if token in IN_ROOT:
            in_root = True
            continue
        if token in ARGUMENTS_FIRST:
            skip, position = ARGUMENTS_FIRST[token], True
            continue
        if token.startswith(("$", "\"", ".", "~")) or token in SHELL_WORDS or token in PRODUCTS:
            continue
        if not re.match(r"^[\w/][\w/.+-]*$", token) or token.isdigit():
            continue
        yield token, line


def script_files():
    files = []
    for folder in SCRIPT_DIRS:
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*"), recursive=True):
            if os.path.isfile(path) and "__pycache__" not in path and "/Fixtures/" not in path and "/testdata/" not in path:
                files.append(path)
    files += [os.path.join(ROOT, "Makefile"), os.path.join(ROOT, ".ci", "run")]
    return sorted(files)


def kind_of(path):
    if path.endswith(".py"):
        return "python"
    if path.endswith(".swift"):
        return "swift"
    if path.endswith(".sh") or os.path.basename(path) in ("Makefile", "run"):
        return "shell"
    try:
        first = open(path, "rb").readline()
    except OSError:
        return None
    if first.startswith(b"#!") and b"python" in first:
        return "python"
    if first.startswith(b"#!") and (b"sh" in first):
        return "shell"
    return None


def interpreter_of(text):
    """The Python a script names in its #! line when that is another than the one running this
    (reliability/lazyfs.py runs under Debian's /usr/bin/python3, for Debian's python3-pyfuse3)."""
    first = text.split("\n", 1)[0]
    match = re.match(r"#!\s*(/\S*python3(?:\.\d+)?)\s*$", first)
    if match and os.path.exists(match.group(1)) and os.path.realpath(match.group(1)) != os.path.realpath(sys.executable):
        return match.group(1)
    return None


def module_file(interpreter, module):
    """Where `interpreter` would import `module` from (found, not imported), or None."""
    probe = ("import importlib.util, sys\n"
             "spec = importlib.util.find_spec(sys.argv[1])\n"
             "print(spec.origin if spec and spec.origin else '')")
    found = subprocess.run([interpreter, "-c", probe, module], capture_output=True, text=True).stdout.strip()
    return found or None


def check_modules(gaps, declared, text, name, first_line, local_modules, distributions, dpkg=None):
    """Every module `text` (Python) imports is the standard library's, the project's, or from
    a pip package ensure-deps names; for a script run by Debian's Python (its #! line), from a
    Debian package ensure-deps names (or one that such a package depends on)."""
    interpreter = interpreter_of(text) if dpkg is not None else None
    for module, line in modules_in_python(text):
        if module in sys.stdlib_module_names or module in local_modules or module == "__future__":
            continue
        where = f"{name}:{first_line + line}"
        if interpreter is not None:
            path = module_file(interpreter, module)
            if path is None:
                gaps.add(f"Python module {module} ({where}, for {interpreter}) is not installed: add the Debian "
                         f"package that ships it ({shipped_by(r'/dist-packages/' + re.escape(module) + r'[/.]')}) "
                         f"to scripts/ensure-deps.sh", key=module)
            elif not path.startswith(("/usr/lib/python3/", "/usr/lib/python3.")):
                gaps.add(f"Python module {module} ({where}, for {interpreter}) is {path}, which no Debian package "
                         f"ships: installed by hand? Add the package that ships it to scripts/ensure-deps.sh", key=module)
            else:
                judge(gaps, dpkg, declared, "command", f"Python module {module}", path, where)
            continue
        owners = [normalize(d) for d in distributions.get(module, [])]
        if not owners:
            gaps.add(f"Python module {module} ({where}) is not installed, and scripts/ensure-deps.sh "
                     f"names no pip package for it: add one to its list", key=module)
        elif any(owner in declared.named(name, "pip") for owner in owners):
            gaps.ok(f"Python module {module}", f"pip's {owners[0]} (named)", where)
        elif any(owner in declared.pip for owner in owners):
            gaps.add(f"Python module {module} ({where}) comes from pip's {owners[0]}, which scripts/ensure-deps.sh installs "
                     f"only for '{declared.pip[owners[0]]}': move it to a group that work installs", key=module)
        else:
            gaps.add(f"Python module {module} ({where}) comes from pip's {owners[0]}, which "
                     f"scripts/ensure-deps.sh does not install: add {owners[0]}==<version>", key=module)


def check_commands(gaps, dpkg, declared):
    local_modules = {os.path.splitext(os.path.basename(p))[0] for folder in SCRIPT_DIRS
                     for p in glob.glob(os.path.join(ROOT, folder, "**", "*.py"), recursive=True)}
    distributions = metadata.packages_distributions()
    for path in script_files():
        kind = kind_of(path)
        if kind is None:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        name = relative(path)
        resolve = shutil.which
        if kind == "python":
            found = commands_in_python(text, name)
            check_modules(gaps, declared, text, name, 0, local_modules, distributions, dpkg)
        elif kind == "swift":
            found = commands_in_swift(text)
            resolve = swift_command
        else:
            makefile = os.path.basename(path) == "Makefile"
            found, python = commands_in_shell(text, makefile=makefile, functions=() if makefile else shell_functions(path))
            for body, first_line in python:  # a <<'PY' here-document's imports
                check_modules(gaps, declared, body, name, first_line, local_modules, distributions)
        for item in found:
            command, line = item[0], item[1]
            maybe = len(item) > 2
            resolved = command if os.path.isabs(command) else resolve(command)
            if resolved is None and "/" in command and os.path.exists(os.path.join(ROOT, command)):
                continue  # a script of the project's
            if resolved is None or not os.path.exists(resolved):
                if not maybe:
                    gaps.add(key=command, line=f"command {command} ({name}:{line}) is not installed: add "
                             f"{shipped_by(r'/s?bin/' + re.escape(os.path.basename(command)) + '$')}")
                continue
            label = f"command {os.path.basename(command)}"
            if resolve is swift_command and resolved != shutil.which(os.path.basename(command)):
                label += f" ({resolved})"  # Debian's, where the tests look, not PATH's
            judge(gaps, dpkg, declared, "command", label, resolved, f"{name}:{line}")


def main():
    parser = argparse.ArgumentParser(prog="checks/check-deps.sh", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", action="append", default=[], help="a built brados: check the libraries it loads")
    parser.add_argument("--deb", help="the .deb made from the release binary: check that it depends on them")
    parser.add_argument("--verbose", action="store_true", help="also list every need found and what meets it")
    parser.add_argument("--only", choices=["headers", "commands", "libraries"], action="append",
                        help="run only these checks (all by default; libraries with --binary)")
    options = parser.parse_args()
    checks = options.only or ["headers", "commands"] + (["libraries"] if options.binary else [])
    dpkg = Dpkg()
    declared = Declared(dpkg)
    gaps = Gaps(options.verbose)
    if "headers" in checks:
        check_headers(gaps, dpkg, declared)
    if "commands" in checks:
        check_commands(gaps, dpkg, declared)
    if "libraries" in checks:
        if not options.binary:
            parser.error("--only libraries needs --binary")
        for binary in options.binary:
            deb = options.deb if options.deb and os.path.basename(binary) == "brados" and "/release/" in binary else None
            check_libraries(gaps, dpkg, declared, os.path.abspath(binary), deb)
    summary = ", ".join(checks)
    for what, (source, where) in sorted(gaps.met.items()):
        print(f"  {what:<48} {source:<40} {where}")
    if gaps.lines:
        print(f"check-deps: {len(gaps.lines)} gap(s) in {summary}: scripts/ensure-deps.sh must install what "
              "brados needs on a fresh machine", file=sys.stderr)
        sys.exit(1)
    print(f"check-deps: {summary}: every need is met by scripts/ensure-deps.sh or the machine")


if __name__ == "__main__":
    main()
