#!/usr/bin/env python3
"""Checks that Supabase's own Python client (supabase-py: GoTrue + PostgREST + Realtime) works
against the reference server's coach project unchanged: password sign-in, selects with eq,
order and ranges with an exact count, a single object, token refresh with rotation, sign-out;
and Realtime: a channel of `postgres_changes` on a conversation's messages receives the
insert, the update and the delete another process makes in the server's SQLite file, and
nothing of another conversation.

    python3 checks/check-supabase.py [--build-dir .build] [--configuration debug]
"""
import asyncio
import os
import sqlite3
import subprocess
import tempfile

import interop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANON_KEY = "brados-reference-anon-key"


def main():
    options = interop.options(__doc__)
    try:
        from supabase import create_client
    except ImportError:
        interop.not_installed("supabase")

    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados-server")
    data = tempfile.mkdtemp(prefix="brados-check-supabase-")
    server = subprocess.Popen([binary, "--port", "0", "--until-stdin-closes", "--data-dir", data], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    check = interop.Checks()
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
        asyncio.run(realtime(url, busiest["id"], conversations[-1]["id"], os.path.join(data, "server.sqlite"), check))
        client.auth.sign_out()
        check("sign out", client.auth.get_session() is None)
    finally:
        server.terminate()
        server.wait()
    check.finish()


async def realtime(url, conversation, other, database, check):
    """supabase-py's async client subscribes to one conversation's messages; another process
    inserts, updates and deletes rows in the server's SQLite file."""
    from supabase import acreate_client

    client = await acreate_client(url, ANON_KEY)
    await client.auth.sign_in_with_password({"email": "demo@example.com", "password": "demo"})
    received, subscribed = [], asyncio.Event()
    channel = client.channel("check-messages")
    channel.on_postgres_changes("*", lambda change: received.append(change["data"]), schema="public", table="messages",
                                filter=f"conversation_id=eq.{conversation}")
    await channel.subscribe(lambda status, error: subscribed.set() if str(status).endswith("SUBSCRIBED") else None)
    await asyncio.wait_for(subscribed.wait(), 10)
    check("Realtime: subscribed to a conversation's messages", subscribed.is_set())

    def write(sql, arguments=()):
        connection = sqlite3.connect(database, timeout=10)
        connection.execute(sql, arguments)
        connection.commit()
        connection.close()

    insert = ("INSERT INTO messages (id, conversation_id, user_id, role, content, created_at) "
              "SELECT ?, id, user_id, 'user', ?, (julianday('now') - 2440587.5) * 86400.0 FROM conversations WHERE id = ?")
    write(insert, ("realtime-other", "not this conversation", other))
    write(insert, ("realtime-1", "hello", conversation))
    write("UPDATE messages SET content = 'edited' WHERE id = 'realtime-1'")
    write("DELETE FROM messages WHERE id = 'realtime-1'")
    for _ in range(100):
        if len(received) >= 3:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.3)  # anything more would be one too many
    kinds = [(getattr(data["type"], "value", data["type"]), (data.get("record") or data.get("old_record") or {}).get("id")) for data in received]
    check(f"Realtime: insert, update and delete by another process, in order ({kinds})",
          kinds == [("INSERT", "realtime-1"), ("UPDATE", "realtime-1"), ("DELETE", "realtime-1")])
    check("Realtime: the record as PostgREST shows it", received and received[0]["record"]["content"] == "hello"
          and received[0]["record"]["created_at"].endswith("+00:00") and received[0]["commit_timestamp"])
    await client.remove_all_channels()


if __name__ == "__main__":
    main()
