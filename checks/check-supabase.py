#!/usr/bin/env python3
"""Checks that Supabase's own Python client (supabase-py: GoTrue + PostgREST) works against
the reference server's coach project unchanged: password sign-in, selects with eq, order and
ranges with an exact count, a single object, token refresh with rotation, sign-out.

    python3 checks/check-supabase.py [--build-dir .build] [--configuration debug]
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANON_KEY = "brados-reference-anon-key"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--configuration", default="debug")
    options = parser.parse_args()
    try:
        from supabase import create_client
    except ImportError:
        sys.exit("supabase is not installed: scripts/ensure-deps.sh all installs it (pip)")

    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados-server")
    server = subprocess.Popen([binary, "--port", "0", "--until-stdin-closes"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    checks = []

    def check(name, condition):
        checks.append((name, bool(condition)))
        print(("ok   " if condition else "FAIL ") + name)

    try:
        url = server.stdout.readline().strip().split(" ")[-1]
        client = create_client(url, ANON_KEY)
        signed_in = client.auth.sign_in_with_password({"email": "demo@example.com", "password": "demo"})
        user_id = signed_in.user.id
        check("sign in with password", signed_in.session.access_token and signed_in.user.email == "demo@example.com")
        conversations = client.table("conversations").select("*").eq("user_id", user_id).order("updated_at", desc=True).execute().data
        updated = [row["updated_at"] for row in conversations]
        check(f"conversations, newest first ({len(conversations)})", len(conversations) == 8 and updated == sorted(updated, reverse=True))
        busiest = max(conversations, key=lambda row: row["message_count"])
        page = client.table("messages").select("*", count="exact").eq("conversation_id", busiest["id"]).order("created_at").range(100, 199).execute()
        check(f"a range of messages with an exact count ({page.count})", len(page.data) == 100 and page.count == busiest["message_count"])
        profile = client.table("context_profiles").select("*").eq("user_id", user_id).single().execute().data
        check("the context profile as a single object", profile["user_id"] == user_id and profile["goals"])
        before = client.auth.get_session().refresh_token
        refreshed = client.auth.refresh_session()
        check("refresh rotates the refresh token", refreshed.session.refresh_token != before)
        check("the user from the new token", client.auth.get_user().user.id == user_id)
        client.auth.sign_out()
        check("sign out", client.auth.get_session() is None)
    finally:
        server.terminate()
        server.wait()
    failed = [name for name, passed in checks if not passed]
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
