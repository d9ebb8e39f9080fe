#!/usr/bin/python3
"""A file system that forgets what a power cut forgets (LazyFS's model), for power_loss.py.

    /usr/bin/python3 reliability/lazyfs.py BACKING MOUNTPOINT CONTROL_SOCKET

Every call on MOUNTPOINT is passed to the folder BACKING (FUSE, through Debian's
python3-pyfuse3). Beside the live files it keeps what a disk would still hold after the power
went: a file's data as of its last fsync (or fdatasync, or a write through O_SYNC/O_DSYNC),
and a folder's names as of its last fsync of that folder. Nothing else is durable: data
written since the file's last fsync is lost, and a name created, renamed or removed since its
folder's last fsync is as it was at that fsync.

The suite speaks to it on CONTROL_SOCKET, one line a request:

    checkpoint            everything live now is durable (a `sync` before the test); the log of
                          sync points is emptied
    count                 how many sync points (fsyncs that reached it) since the checkpoint
    materialize K DEST    writes into the empty folder DEST the files the disk holds after a cut
                          that comes right after the K-th sync point (0: at the checkpoint)
    quit                  unmounts and exits

Each answer is one line: `ok …` or `error …`.

Identity is the backing file's (device, inode): a file keeps it across renames; when its last
name goes, a new file that the backing file system gives the same inode number is another.
The durable state is kept in memory (the suite's profiles are a few megabytes).
"""
import errno
import os
import stat
import sys

import pyfuse3
import trio

ATTR_TIMEOUT = 1.0


class Durable:
    """What the disk holds: file data by identity, folder entries by identity."""

    def __init__(self):
        self.data = {}      # ino -> bytes (regular files)
        self.entries = {}   # ino -> {name: ino} (folders)
        self.modes = {}     # ino -> permission bits

    def copy(self):
        other = Durable()
        other.data = dict(self.data)
        other.entries = {ino: dict(names) for ino, names in self.entries.items()}
        other.modes = dict(self.modes)
        return other


class LazyFS(pyfuse3.Operations):
    def __init__(self, backing):
        super().__init__()
        self.backing = os.path.realpath(backing)
        root_fd = os.open(self.backing, os.O_RDONLY | os.O_DIRECTORY)
        info = os.fstat(root_fd)
        self.next_ino = pyfuse3.ROOT_INODE + 1
        self.by_identity = {(info.st_dev, info.st_ino): pyfuse3.ROOT_INODE}
        self.kinds = {pyfuse3.ROOT_INODE: "dir"}
        self.targets = {}               # ino -> symlink target
        self.fds = {pyfuse3.ROOT_INODE: root_fd}   # ino -> an open descriptor (folders O_RDONLY, others O_PATH)
        self.lookups = {pyfuse3.ROOT_INODE: 1}
        self.handles = {}               # fh -> (fd, ino, synchronous)
        self.dir_handles = {}           # fh -> (ino, the names when it was opened)
        self.next_fh = 1
        self.checkpoint_state = Durable()
        self.log = []                   # ("data", ino, bytes, mode) | ("entries", ino, {name: ino})
        self.checkpoint()

    # Identity ---------------------------------------------------------------------------

    def identify(self, info, parent_fd=None, name=None):
        """Our inode for a backing file, given its stat; allocated on first sight."""
        key = (info.st_dev, info.st_ino)
        ino = self.by_identity.get(key)
        if ino is None:
            ino = self.next_ino
            self.next_ino += 1
            self.by_identity[key] = ino
            if stat.S_ISDIR(info.st_mode):
                self.kinds[ino] = "dir"
            elif stat.S_ISLNK(info.st_mode):
                self.kinds[ino] = "symlink"
                self.targets[ino] = os.readlink(name, dir_fd=parent_fd)
            else:
                self.kinds[ino] = "file"
        return ino

    def forget_identity(self, info):
        """The last name of a file went: its inode number may be another file's next."""
        if stat.S_ISDIR(info.st_mode) or info.st_nlink <= 1:
            self.by_identity.pop((info.st_dev, info.st_ino), None)

    def fd(self, ino):
        try:
            return self.fds[ino]
        except KeyError:
            raise pyfuse3.FUSEError(errno.ESTALE)

    def proc(self, ino):
        return f"/proc/self/fd/{self.fd(ino)}"

    def entry(self, parent_ino, name):
        """Looks `name` up in a folder and counts the lookup, as FUSE's entry replies do."""
        parent_fd = self.fd(parent_ino)
        try:
            info = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        ino = self.identify(info, parent_fd, name)
        if ino not in self.fds:
            flags = os.O_RDONLY | os.O_DIRECTORY if stat.S_ISDIR(info.st_mode) else os.O_PATH | os.O_NOFOLLOW
            try:
                self.fds[ino] = os.open(name, flags, dir_fd=parent_fd)
            except OSError as error:
                raise pyfuse3.FUSEError(error.errno)
            self.lookups[ino] = 0
        self.lookups[ino] += 1
        return self.attributes(info, ino)

    @staticmethod
    def attributes(info, ino):
        attrs = pyfuse3.EntryAttributes()
        for field in ("st_mode", "st_nlink", "st_uid", "st_gid", "st_rdev", "st_size", "st_atime_ns", "st_mtime_ns", "st_ctime_ns"):
            setattr(attrs, field, getattr(info, field))
        attrs.st_ino = ino
        attrs.generation = 0
        attrs.st_blksize = 4096
        attrs.st_blocks = (info.st_size + 511) // 512
        attrs.entry_timeout = ATTR_TIMEOUT
        attrs.attr_timeout = ATTR_TIMEOUT
        return attrs

    # The durable state ------------------------------------------------------------------

    def folder_entries(self, ino):
        fd = self.fd(ino)
        names = {}
        for name in os.listdir(fd):
            encoded = os.fsencode(name)
            info = os.stat(encoded, dir_fd=fd, follow_symlinks=False)
            names[encoded] = self.identify(info, fd, encoded)
        return names

    def checkpoint(self):
        """Everything live is durable: walks the backing folder."""
        state = Durable()

        def walk(ino, path):
            state.entries[ino] = {}
            for name in sorted(os.listdir(path)):
                child = os.path.join(path, name)
                info = os.lstat(child)
                child_ino = self.identify(info, None, child) if not stat.S_ISLNK(info.st_mode) else self.identify_link(info, child)
                state.entries[ino][os.fsencode(name)] = child_ino
                state.modes[child_ino] = stat.S_IMODE(info.st_mode)
                if stat.S_ISDIR(info.st_mode):
                    walk(child_ino, child)
                elif stat.S_ISREG(info.st_mode):
                    with open(child, "rb") as handle:
                        state.data[child_ino] = handle.read()

        walk(pyfuse3.ROOT_INODE, self.backing)
        self.checkpoint_state = state
        self.log = []

    def identify_link(self, info, path):
        key = (info.st_dev, info.st_ino)
        if key not in self.by_identity:
            ino = self.next_ino
            self.next_ino += 1
            self.by_identity[key] = ino
            self.kinds[ino] = "symlink"
            self.targets[ino] = os.readlink(path)
        return self.by_identity[key]

    def record_data(self, fd, ino):
        # The handle may be write-only: its data is read through a descriptor of its own.
        reader = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY)
        try:
            info = os.fstat(reader)
            data = os.pread(reader, info.st_size, 0) if info.st_size else b""
        finally:
            os.close(reader)
        self.log.append(("data", ino, data, stat.S_IMODE(info.st_mode)))

    def state_after(self, count):
        state = self.checkpoint_state.copy()
        for event in self.log[:count]:
            if event[0] == "data":
                _, ino, data, mode = event
                state.data[ino] = data
                state.modes[ino] = mode
            else:
                _, ino, names = event
                state.entries[ino] = dict(names)
        return state

    def materialize(self, count, destination):
        state = self.state_after(count)
        if os.listdir(destination):
            raise ValueError(f"{destination} is not empty")
        placed_files = {}
        placed_folders = set()

        def build(ino, path):
            placed_folders.add(ino)
            for name, child in sorted(state.entries.get(ino, {}).items()):
                target = os.path.join(os.fsencode(path), name)
                kind = self.kinds.get(child, "file")
                if kind == "dir":
                    if child in placed_folders:
                        continue  # a folder moved without its old parent's fsync: one place is enough
                    os.mkdir(target, state.modes.get(child, 0o700))
                    build(child, target)
                    os.chmod(target, state.modes.get(child, 0o700))
                elif kind == "symlink":
                    os.symlink(self.targets[child], target)
                elif child in placed_files:
                    os.link(placed_files[child], target)
                else:
                    with open(target, "wb") as handle:
                        handle.write(state.data.get(child, b""))
                    os.chmod(target, state.modes.get(child, 0o600))
                    placed_files[child] = target

        build(pyfuse3.ROOT_INODE, destination)

    # FUSE operations --------------------------------------------------------------------

    async def lookup(self, parent_inode, name, ctx=None):
        return self.entry(parent_inode, name)

    async def forget(self, inode_list):
        for ino, count in inode_list:
            if ino == pyfuse3.ROOT_INODE or ino not in self.lookups:
                continue
            self.lookups[ino] -= count
            if self.lookups[ino] <= 0:
                del self.lookups[ino]
                os.close(self.fds.pop(ino))

    async def getattr(self, inode, ctx=None):
        try:
            return self.attributes(os.fstat(self.fd(inode)), inode)
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)

    async def setattr(self, inode, attr, fields, fh, ctx):
        try:
            if fields.update_size:
                if fh is not None and fh in self.handles:
                    os.ftruncate(self.handles[fh][0], attr.st_size)
                else:
                    os.truncate(self.proc(inode), attr.st_size)
            if fields.update_mode and self.kinds.get(inode) != "symlink":
                os.chmod(self.proc(inode), stat.S_IMODE(attr.st_mode))
            if fields.update_uid or fields.update_gid:
                os.chown(self.proc(inode), attr.st_uid if fields.update_uid else -1,
                         attr.st_gid if fields.update_gid else -1, follow_symlinks=self.kinds.get(inode) != "symlink")
            if (fields.update_atime or fields.update_mtime) and self.kinds.get(inode) != "symlink":
                now = os.fstat(self.fd(inode))
                os.utime(self.proc(inode), ns=(attr.st_atime_ns if fields.update_atime else now.st_atime_ns,
                                               attr.st_mtime_ns if fields.update_mtime else now.st_mtime_ns))
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        return await self.getattr(inode)

    async def readlink(self, inode, ctx):
        return os.fsencode(self.targets[inode])

    async def opendir(self, inode, ctx):
        fh = self.next_fh
        self.next_fh += 1
        # The names as the folder is opened: offsets into this list stay valid while a reader
        # removes entries between its readdir calls (`rm -r`).
        names = sorted(os.fsencode(name) for name in os.listdir(self.fd(inode)))
        self.dir_handles[fh] = (inode, names)
        return fh

    async def readdir(self, fh, start_id, token):
        ino, names = self.dir_handles[fh]
        for index in range(start_id, len(names)):
            try:
                attrs = self.entry(ino, names[index])  # readdirplus: each entry replied is a lookup
            except pyfuse3.FUSEError:
                continue  # removed since the folder was opened
            if not pyfuse3.readdir_reply(token, names[index], attrs, index + 1):
                await self.forget([(attrs.st_ino, 1)])
                break

    async def releasedir(self, fh):
        self.dir_handles.pop(fh, None)

    async def fsyncdir(self, fh, datasync):
        ino, _ = self.dir_handles[fh]
        os.fsync(self.fd(ino))
        self.log.append(("entries", ino, self.folder_entries(ino)))

    async def mkdir(self, parent_inode, name, mode, ctx):
        try:
            os.mkdir(name, mode & ~ctx.umask, dir_fd=self.fd(parent_inode))
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        return self.entry(parent_inode, name)

    def remove(self, parent_inode, name, folder):
        parent_fd = self.fd(parent_inode)
        try:
            info = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
            if folder:
                os.rmdir(name, dir_fd=parent_fd)
            else:
                os.unlink(name, dir_fd=parent_fd)
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        self.forget_identity(info)

    async def rmdir(self, parent_inode, name, ctx):
        self.remove(parent_inode, name, folder=True)

    async def unlink(self, parent_inode, name, ctx):
        self.remove(parent_inode, name, folder=False)

    async def symlink(self, parent_inode, name, target, ctx):
        try:
            os.symlink(target, name, dir_fd=self.fd(parent_inode))
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        return self.entry(parent_inode, name)

    async def rename(self, parent_inode_old, name_old, parent_inode_new, name_new, flags, ctx):
        old_fd, new_fd = self.fd(parent_inode_old), self.fd(parent_inode_new)
        if flags:
            raise pyfuse3.FUSEError(errno.EINVAL)  # RENAME_EXCHANGE / NOREPLACE: not used by brados
        try:
            replaced = os.stat(name_new, dir_fd=new_fd, follow_symlinks=False)
        except FileNotFoundError:
            replaced = None
        try:
            moved = os.stat(name_old, dir_fd=old_fd, follow_symlinks=False)
            os.rename(name_old, name_new, src_dir_fd=old_fd, dst_dir_fd=new_fd)
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        if replaced is not None and (replaced.st_dev, replaced.st_ino) != (moved.st_dev, moved.st_ino):
            self.forget_identity(replaced)

    async def link(self, inode, new_parent_inode, new_name, ctx):
        try:
            os.link(self.proc(inode), new_name, dst_dir_fd=self.fd(new_parent_inode), follow_symlinks=True)
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        return self.entry(new_parent_inode, new_name)

    def handle(self, fd, ino, flags):
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = (fd, ino, bool(flags & (os.O_SYNC | os.O_DSYNC)))
        return pyfuse3.FileInfo(fh=fh)

    async def open(self, inode, flags, ctx):
        try:
            # The kernel resolved the path; O_NOFOLLOW would refuse the /proc/self/fd link itself.
            fd = os.open(self.proc(inode), flags & ~(os.O_CREAT | os.O_EXCL | os.O_NOCTTY | os.O_NOFOLLOW))
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        return self.handle(fd, inode, flags)

    async def create(self, parent_inode, name, mode, flags, ctx):
        try:
            fd = os.open(name, (flags | os.O_CREAT) & ~os.O_NOCTTY, mode & ~ctx.umask, dir_fd=self.fd(parent_inode))
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        attrs = self.entry(parent_inode, name)
        return self.handle(fd, attrs.st_ino, flags), attrs

    async def read(self, fh, off, size):
        return os.pread(self.handles[fh][0], size, off)

    async def write(self, fh, off, buf):
        fd, ino, synchronous = self.handles[fh]
        try:
            written = os.pwrite(fd, buf, off)
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno)
        if synchronous:
            self.record_data(fd, ino)
        return written

    async def flush(self, fh):
        pass

    async def release(self, fh):
        fd, _, _ = self.handles.pop(fh)
        os.close(fd)

    async def fsync(self, fh, datasync):
        fd, ino, _ = self.handles[fh]
        os.fsync(fd)
        self.record_data(fd, ino)

    async def statfs(self, ctx):
        info = os.statvfs(self.backing)
        data = pyfuse3.StatvfsData()
        for field in ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree", "f_favail", "f_namemax"):
            setattr(data, field, getattr(info, field))
        return data

    async def access(self, inode, mode, ctx):
        return True


def guarded(method):
    """An operation whose unexpected exception is the caller's EIO, said on stderr, never the
    end of the file system (pyfuse3 stops its main loop on one)."""
    async def wrapper(*args, **kwargs):
        try:
            return await method(*args, **kwargs)
        except pyfuse3.FUSEError:
            raise
        except OSError as error:
            raise pyfuse3.FUSEError(error.errno or errno.EIO)
        except Exception as error:  # noqa: BLE001 — reported, and the call fails as a disk's would
            print(f"lazyfs: {method.__name__}: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
            raise pyfuse3.FUSEError(errno.EIO)
    wrapper.__name__ = method.__name__
    return wrapper


for _name in ("lookup", "forget", "getattr", "setattr", "readlink", "opendir", "readdir", "releasedir", "fsyncdir", "mkdir",
              "rmdir", "unlink", "symlink", "rename", "link", "open", "create", "read", "write", "flush", "release", "fsync",
              "statfs", "access"):
    setattr(LazyFS, _name, guarded(getattr(LazyFS, _name)))


async def serve_control(fs, path, stopped):
    listener = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
    await listener.bind(path)
    listener.listen(4)
    while True:
        connection, _ = await listener.accept()
        with connection:
            buffer = b""
            while True:
                chunk = await connection.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    words = line.decode().split(" ", 2)
                    try:
                        if words[0] == "checkpoint":
                            fs.checkpoint()
                            answer = "ok"
                        elif words[0] == "count":
                            answer = f"ok {len(fs.log)}"
                        elif words[0] == "materialize":
                            fs.materialize(int(words[1]), words[2])
                            answer = "ok"
                        elif words[0] == "quit":
                            await connection.send(b"ok\n")
                            stopped.set()
                            pyfuse3.terminate()
                            return
                        else:
                            answer = f"error unknown request {words[0]}"
                    except Exception as error:  # the suite reads it; the file system stays up
                        answer = f"error {type(error).__name__}: {error}"
                    await connection.send(answer.encode() + b"\n")


async def run(fs, control):
    stopped = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve_control, fs, control, stopped)
        await pyfuse3.main()
        nursery.cancel_scope.cancel()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    backing, mountpoint, control = sys.argv[1:]
    fs = LazyFS(backing)
    options = set(pyfuse3.default_options)
    options.add("fsname=lazyfs")
    options.discard("default_permissions")
    pyfuse3.init(fs, mountpoint, options)
    try:
        print("ready", flush=True)
        trio.run(run, fs, control)
    finally:
        pyfuse3.close(unmount=True)


if __name__ == "__main__":
    main()
