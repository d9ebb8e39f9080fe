#!/usr/bin/env python3
"""Checks that a third-party Plex client, python-plexapi (which reads XML), can browse the
reference server's music library unchanged. Installs plexapi with pip when missing.

    python3 scripts/check-plexapi.py [--build-dir .build] [--configuration debug]
"""
import argparse
import json
import os
import subprocess
import sys
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--configuration", default="debug")
    options = parser.parse_args()
    try:
        import plexapi  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "plexapi"], check=True)
    from plexapi.server import PlexServer

    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados-server")
    server = subprocess.Popen([binary, "--port", "0", "--lifetime", "300"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip().split(" ")[-1]
        login = urllib.request.Request(url + "/api/auth/login", data=json.dumps({"username": "demo", "password": "demo"}).encode(),
                                       headers={"Content-Type": "application/json"})
        token = json.load(urllib.request.urlopen(login))["accessToken"]
        plex = PlexServer(url, token)
        checks = []

        def check(name, condition):
            checks.append((name, bool(condition)))
            print(("ok   " if condition else "FAIL ") + name)

        check("server identity", plex.machineIdentifier and plex.version)
        music = plex.library.section("Music")
        check("one music section of type artist", music.type == "artist")
        albums = music.albums()
        check(f"albums listed ({len(albums)})", len(albums) > 250 and all(a.type == "album" for a in albums))
        check("paged search", len(music.search(libtype="album", maxresults=5)) == 5)
        collections = music.collections()
        check(f"collections listed ({len(collections)})", len(collections) == 20 and collections[0].childCount > 0)
        check("collection items", len(collections[0].items()) == collections[0].childCount)
        album = plex.fetchItem(int(albums[0].ratingKey))
        check("album detail with genres", album.title == albums[0].title and album.genres)
        thumb = urllib.request.urlopen(albums[0].thumbUrl).read()
        check("artwork from thumbUrl is a PNG", thumb.startswith(b"\x89PNG"))
    finally:
        server.terminate()
        server.wait()
    failed = [name for name, passed in checks if not passed]
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
