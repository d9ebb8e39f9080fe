#!/usr/bin/env python3
"""Checks that a third-party Plex client, python-plexapi (which reads XML), works against the
reference server unchanged: browsing the music library with a token, and, with its plex.tv
addresses pointed at the reference server's emulation, signing in (password, token, a linked
PIN and a strong OAuth code), listing resources, connecting to each server the way it picks
connections, and signing out; and notifications: its AlertListener (a websocket on
/:/websockets/notifications) and a server-sent-events reader hear the timeline entries of
albums added, retitled and deleted.

    python3 checks/check-plexapi.py [--build-dir .build] [--configuration debug]
"""
import io
import json
import os
import subprocess
import urllib.request

import interop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    options = interop.options(__doc__)
    # Pinned in scripts/ensure-deps.sh: a new plexapi release must not turn CI red by itself.
    try:
        from PIL import Image
        from plexapi.server import PlexServer
        import websocket  # noqa: F401 (websocket-client: without it python-plexapi's AlertListener quietly does nothing)
    except ImportError as error:
        interop.not_installed(error.name)

    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados-server")
    server = subprocess.Popen([binary, "--port", "0", "--admin", "--until-stdin-closes"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip().split(" ")[-1]
        login = urllib.request.Request(url + "/api/auth/login", data=json.dumps({"username": "demo", "password": "demo"}).encode(),
                                       headers={"Content-Type": "application/json"})
        token = json.load(urllib.request.urlopen(login))["accessToken"]
        plex = PlexServer(url, token)
        check = interop.Checks()
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
        with_art = next(a for a in albums if a.thumb)
        jpeg = urllib.request.urlopen(plex.transcodeImage(with_art.thumb, 1024, 1024)).read()
        check("the photo transcoder answers JPEG, as Plex's does", jpeg.startswith(b"\xff\xd8\xff"))
        image = Image.open(io.BytesIO(jpeg))
        image.load()
        check(f"... which Pillow (libjpeg) decodes: {image.format} {image.size[0]}x{image.size[1]} {image.mode}",
              image.format == "JPEG" and image.size == (1024, 1024) and image.mode == "RGB")
        png = urllib.request.urlopen(plex.transcodeImage(with_art.thumb, 1024, 1024, imageFormat="png")).read()
        check("... and PNG on request", png.startswith(b"\x89PNG"))
        check("several sections; a second music one", sorted(s.title for s in plex.library.sections()) == ["Live Recordings", "Movies", "Music"])

        notifications(plex, url, token, check)
        plex_tv(url, check)
    finally:
        server.terminate()
        server.wait()
    check.finish()


def notifications(plex, url, token, check):
    """AlertListener and the event source hear albums added, retitled and deleted."""
    import threading
    import time

    heard, streamed = [], []
    connected = threading.Event()
    listener = plex.startAlertListener(callback=lambda message: heard.append(message))

    def read_events():
        request = urllib.request.Request(url + "/:/eventsource/notifications?X-Plex-Token=" + token)
        with urllib.request.urlopen(request, timeout=30) as stream:
            connected.set()
            event = None
            for raw in stream:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "timeline":
                    streamed.append(json.loads(line[6:])["TimelineEntry"])
                    if streamed[-1]["state"] == 9:
                        return

    reader = threading.Thread(target=read_events, daemon=True)
    reader.start()
    connected.wait(10)
    time.sleep(1)  # the listener's thread connects

    def change(body):
        admin = urllib.request.Request(url + "/_admin/plex", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        urllib.request.urlopen(admin).read()

    now = int(time.time())
    change({"add": [{"ratingKey": "990001", "title": "Alert Album", "artist": "Check", "year": 2026}], "at": now})
    change({"retitle": {"990001": "Alert Album (Remastered)"}, "at": now + 1})
    change({"delete": ["990001"], "at": now + 2})
    deadline = time.time() + 10
    while time.time() < deadline and sum(len(m.get("TimelineEntry", [])) for m in heard) < 4:
        time.sleep(0.1)
    reader.join(10)
    listener.stop()
    entries = [(e["itemID"], e["type"], e["state"]) for m in heard if m.get("type") == "timeline" for e in m["TimelineEntry"]]
    expected = [("990001", 9, 0), ("990001", 9, 5), ("990001", 9, 5), ("990001", 9, 9)]
    check(f"AlertListener hears the album created, processed, retitled and deleted ({entries})", entries == expected)
    check("... each entry with its section and title", all(e["sectionID"] == "1" and e["title"].startswith("Alert Album")
                                                        for m in heard for e in m.get("TimelineEntry", [])))
    check(f"the event source streams the same ({len(streamed)} events)", [(e["itemID"], e["type"], e["state"]) for e in streamed] == expected)


def plex_tv(url, check):
    """plexapi's plex.tv classes with their addresses pointed at the reference server."""
    from plexapi.exceptions import Unauthorized
    from plexapi.myplex import MyPlexAccount, MyPlexPinLogin, MyPlexResource

    MyPlexAccount.SIGNIN = url + "/api/v2/users/signin"
    MyPlexAccount.SIGNOUT = url + "/api/v2/users/signout"
    MyPlexAccount.LINK = url + "/api/v2/pins/link"
    MyPlexAccount.key = url + "/api/v2/user"
    MyPlexResource.key = url + "/api/v2/resources?includeHttps=1&includeRelay=1&includeIPv6=1"
    MyPlexPinLogin.PINS = url + "/api/v2/pins"

    account = MyPlexAccount("demo", "demo")
    check("MyPlexAccount signs in with a user name and password", account.username == "demo" and account.authenticationToken)
    again = MyPlexAccount(token=account.authenticationToken)
    check("MyPlexAccount signs in with a token", again.username == "demo" and again.email)

    pin = MyPlexPinLogin()
    code = pin.pin
    check(f"MyPlexPinLogin gets a 4-character PIN ({code})", code and len(code) == 4)
    check("... not signed in before it is linked", not pin.checkLogin())
    account.link(code)
    check("... linked by a signed-in account, checkLogin gets a token", pin.checkLogin() and pin.token)
    check("... which opens the account", MyPlexAccount(token=pin.token).username == "demo")
    oauth = MyPlexPinLogin(oauth=True)
    link = oauth.oauthUrl()
    check("MyPlexPinLogin(oauth=True) gets a strong code and an app.plex.tv link", len(oauth._code) == 25 and link.startswith("https://app.plex.tv/auth"))
    account.link(oauth._code)
    check("... approved, checkLogin gets a token", oauth.checkLogin() and oauth.token)

    resources = account.resources()
    servers = [r for r in resources if "server" in (r.provides or "")]
    check("resources lists demo's server and the one alice shares", sorted(r.name for r in servers) == ["Alice's Music", "brados reference"])
    own = account.resource("brados reference")
    check("three connections: local, remote, relay", [(c.local, c.relay) for c in own.connections] == [(True, False), (False, False), (False, True)])
    server = own.connect(timeout=5)
    check(f"connect() passes over the refused local address ({server._baseurl})", "127.0.0.2" not in server._baseurl)
    music = server.library.section("Music")
    check(f"... and browses the music section ({len(music.albums())} albums)", len(music.albums()) > 250)
    shared = account.resource("Alice's Music")
    check("the shared server has its own access token", shared.accessToken and shared.accessToken != account.authenticationToken and not shared.owned)
    shared_server = shared.connect(timeout=5)
    check("... connect() and its music section", "/shared/alice" in shared_server._baseurl and len(shared_server.library.section("Music").albums()) > 250)

    token = pin.token
    MyPlexAccount(token=token).signout()
    try:
        MyPlexAccount(token=token)
        check("signout() invalidates the token", False)
    except Unauthorized:
        check("signout() invalidates the token", True)
    check("... and only that one", MyPlexAccount(token=account.authenticationToken).username == "demo")


if __name__ == "__main__":
    main()
