#!/usr/bin/env python3
"""Writes brados's software bill of materials, SPDX 2.3 JSON, for one release binary: brados
itself; every Swift package linked into it, at the version and under the licence
Package.pins.json records (the list the build is checked against); the C code those packages
vendor (BoringSSL); the Swift runtime and Foundation (linked statically); and every system
library the binary links (DT_NEEDED) or opens at run time (its ELF dlopen notes), as the Debian
package that ships it here, at the version the build was made and checked with.

The .deb installs it as /usr/share/doc/brados/sbom.spdx.json, the tarball as
share/doc/brados/sbom.spdx.json, and `make package` puts a copy beside the tarball. It is
reproducible: its time is SOURCE_DATE_EPOCH's and its namespace is derived from the binary's
SHA-256. CI validates it with spdx-tools (pyspdxtools), which nobody here wrote.

    packaging/sbom.py BINARY > sbom.spdx.json
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import depends  # noqa: E402

# C code a Swift package carries inside it, with the licences its files state.
VENDORED = {
    "swift-crypto": [("BoringSSL", "CCryptoBoringSSL", "Apache-2.0 AND ISC AND OpenSSL")],
    "swift-nio-ssl": [("BoringSSL", "CNIOBoringSSL", "Apache-2.0 AND ISC AND OpenSSL")],
}


def spdx_id(text):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", text)


def needed(binary):
    output = subprocess.run(["objdump", "-p", binary], capture_output=True, text=True, check=True).stdout
    return re.findall(r"^\s*NEEDED\s+(\S+)", output, re.M)


def installed_version(package):
    result = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else None


def main():
    if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
        sys.exit(__doc__)
    binary = sys.argv[1]
    digest = hashlib.sha256(open(binary, "rb").read()).hexdigest()
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH") or time.time())
    pins = json.load(open(os.path.join(ROOT, "Package.pins.json")))["packages"]

    brados = spdx_id("brados")
    packages = [{
        "SPDXID": brados, "name": "brados", "versionInfo": version, "supplier": "Organization: The brados team",
        "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION", "copyrightText": "Copyright 2026 The brados team",
        "checksums": [{"algorithm": "SHA256", "checksumValue": digest}],
        "primaryPackagePurpose": "APPLICATION",
        "comment": f"The {arch} release binary as the packages install it (bin/brados, stripped).",
    }]
    relationships = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": brados}]

    def add(package, relationship, of=brados):
        packages.append(package)
        relationships.append({"spdxElementId": of, "relationshipType": relationship, "relatedSpdxElement": package["SPDXID"]})

    runtime = spdx_id("swift-runtime")
    # The toolchain that built it: PATH's swift, else the usual install place (packaging runs
    # from make, whose PATH has it; a bare environment gets NOASSERTION rather than a guess).
    swift = shutil.which("swift") or next((p for p in ("/opt/swift/usr/bin/swift", "/usr/bin/swift") if os.access(p, os.X_OK)), None)
    found = re.search(r"Swift version (\S+)", subprocess.run([swift, "--version"], capture_output=True, text=True).stdout) if swift else None
    swift_version = found.group(1) if found else "NOASSERTION"
    add({"SPDXID": runtime, "name": "Swift runtime, Foundation, Dispatch and ICU data", "versionInfo": swift_version,
         "downloadLocation": "https://www.swift.org/install/", "filesAnalyzed": False, "supplier": "Organization: The Swift project",
         "licenseConcluded": "Apache-2.0 WITH Swift-exception AND Unicode-3.0", "licenseDeclared": "Apache-2.0 WITH Swift-exception AND Unicode-3.0",
         "copyrightText": "Copyright Apple Inc. and the Swift project authors", "primaryPackagePurpose": "LIBRARY"}, "STATIC_LINK")
    for pin in pins:
        url = pin["url"].removesuffix(".git")
        path = re.sub(r"^https://", "", url)
        package = {"SPDXID": spdx_id("swift-" + pin["identity"]), "name": pin["identity"], "versionInfo": pin["version"],
                   "downloadLocation": f"git+{url}.git@{pin['version']}", "filesAnalyzed": False,
                   "licenseConcluded": pin["licence"], "licenseDeclared": pin["licence"], "copyrightText": "NOASSERTION",
                   "primaryPackagePurpose": "LIBRARY",
                   "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                                     "referenceLocator": f"pkg:swift/{path}@{pin['version']}"}]}
        add(package, "STATIC_LINK")
        for name, folder, licence in VENDORED.get(pin["identity"], []):
            add({"SPDXID": spdx_id(f"{pin['identity']}-{name}"), "name": f"{name} (in {pin['identity']}, Sources/{folder})",
                 "versionInfo": pin["version"], "downloadLocation": f"git+{url}.git@{pin['version']}", "filesAnalyzed": False,
                 "licenseConcluded": licence, "licenseDeclared": licence, "copyrightText": "NOASSERTION", "primaryPackagePurpose": "LIBRARY"},
                "CONTAINS", of=package["SPDXID"])

    # System libraries: linked (DT_NEEDED), and opened when a feature is used (dlopen notes).
    libraries = [(soname, "linked") for soname in needed(binary)]
    libraries += [(soname, f"opened at run time for {entry.get('feature', 'a feature')} ({entry.get('priority', 'recommended')})")
                  for entry in depends.dlopen_notes(binary) for soname in entry.get("soname", [])]
    by_package = {}
    for soname, how in libraries:
        # A build that links the Swift runtime dynamically (a debug build): it is the runtime above.
        if re.match(r"lib(swift|Foundation|_Foundation|FoundationEssentials|FoundationInternationalization|dispatch|BlocksRuntime|_Testing)", soname):
            continue
        path = depends.library_path(soname)
        package_name = depends.package_of(path) if path else None
        if package_name is None:
            sys.exit(f"sbom.py: {soname} ({how}) is not installed here, or no package ships it: install it first (scripts/ensure-deps.sh package)")
        by_package.setdefault(package_name, []).append(f"{soname}, {how}")
    for package_name, uses in by_package.items():
        installed = installed_version(package_name) or "NOASSERTION"
        add({"SPDXID": spdx_id(f"deb-{package_name}"), "name": package_name, "versionInfo": installed,
             "downloadLocation": "NOASSERTION", "filesAnalyzed": False, "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION",
             "copyrightText": "NOASSERTION", "primaryPackagePurpose": "LIBRARY",
             "comment": "; ".join(uses) + ". The version is the one it was built and checked with; at run time, the installed"
                        " system's (the .deb's Depends and Recommends say which versions it takes).",
             "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                               "referenceLocator": f"pkg:deb/debian/{package_name}@{installed}?arch={arch}"}]}, "DYNAMIC_LINK")

    document = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"brados-{version}-{arch}",
        "documentNamespace": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"brados/{version}/{arch}/{digest}")),
        "creationInfo": {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch)),
                         "creators": ["Tool: brados-packaging-sbom.py", "Organization: The brados team"]},
        "packages": packages,
        "relationships": relationships,
    }
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
