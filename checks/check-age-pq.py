#!/usr/bin/env python3
"""Checks brados's post-quantum age archives against a second implementation of the format,
written here from the specifications alone (c2sp.org/age's mlkem768x25519 type; X-Wing,
draft-connolly-cfrg-xwing-kem; HPKE, RFC 9180) over kyber-py's ML-KEM-768 and the
`cryptography` package's X25519 and ChaCha20-Poly1305: the `age` tool reads the type only from
1.3, which Debian does not ship.

First the peer proves itself on C2SP's vectors (the specification's example key pair, and the
`hybrid` vector's file key). Then both ways, through the built binary:
- brados -> peer: `keys generate --post-quantum`, `cache export --encrypt`; the peer reads the
  key file, opens the stanza, checks the header MAC, decrypts every chunk, and tar lists
  manifest.json first;
- peer -> brados: the peer encrypts that tar to brados's `age1pq1…` recipient; `cache verify`
  and `cache import --as` open it.

    python3 checks/check-age-pq.py [--build-dir .build] [--configuration debug]
"""
import base64
import hashlib
import hmac
import os
import subprocess
import tempfile

import interop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VECTORS = os.path.join(ROOT, "Tests", "AgeEncryptionTests", "testdata")
CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


# --- Bech32 (BIP 173 without its length limit, as age uses it) --------------------------------
def _polymod(values):
    generator = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    checksum = 1
    for value in values:
        top = checksum >> 25
        checksum = (checksum & 0x1FFFFFF) << 5 ^ value
        for i in range(5):
            checksum ^= generator[i] if (top >> i) & 1 else 0
    return checksum


def _hrp_expand(hrp):
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _regroup(data, source, target, pad):
    accumulator, bits, out = 0, 0, []
    for value in data:
        accumulator = accumulator << source | value
        bits += source
        while bits >= target:
            bits -= target
            out.append(accumulator >> bits & ((1 << target) - 1))
        accumulator &= (1 << bits) - 1
    if pad and bits:
        out.append(accumulator << (target - bits) & ((1 << target) - 1))
    elif not pad and (bits >= source or accumulator):
        raise ValueError("bad padding")
    return out


def bech32_encode(hrp, data):
    values = _regroup(data, 8, 5, True)
    mod = _polymod(_hrp_expand(hrp) + values + [0] * 6) ^ 1
    return hrp + "1" + "".join(CHARSET[v] for v in values + [(mod >> 5 * (5 - i)) & 31 for i in range(6)])


def bech32_decode(text):
    lower = text.lower()
    hrp, _, rest = lower.rpartition("1")
    values = [CHARSET.index(c) for c in rest]
    if _polymod(_hrp_expand(hrp) + values) != 1:
        raise ValueError("bad checksum")
    return hrp, bytes(_regroup(values[:-6], 5, 8, False))


# --- X-Wing (MLKEM768-X25519) and HPKE base mode ----------------------------------------------
def _x25519(scalar, point):
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    return X25519PrivateKey.from_private_bytes(scalar).exchange(X25519PublicKey.from_public_bytes(point))


def _x25519_base(scalar):
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    return X25519PrivateKey.from_private_bytes(scalar).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


XWING_LABEL = b"\\.//^\\"


def xwing_keys(seed):
    """(public key 1216 bytes, (ML-KEM decapsulation key, X25519 scalar, X25519 point))."""
    from kyber_py.ml_kem import ML_KEM_768
    expanded = hashlib.shake_256(seed).digest(96)
    ek, dk = ML_KEM_768._keygen_internal(expanded[:32], expanded[32:64])
    sk_x = expanded[64:96]
    pk_x = _x25519_base(sk_x)
    return ek + pk_x, (dk, sk_x, pk_x)


def xwing_encapsulate(public_key):
    from kyber_py.ml_kem import ML_KEM_768
    pk_m, pk_x = public_key[:1184], public_key[1184:]
    ephemeral = os.urandom(32)
    ct_x = _x25519_base(ephemeral)
    ss_x = _x25519(ephemeral, pk_x)
    ss_m, ct_m = ML_KEM_768.encaps(pk_m)
    return hashlib.sha3_256(ss_m + ss_x + ct_x + pk_x + XWING_LABEL).digest(), ct_m + ct_x


def xwing_decapsulate(private, enc):
    from kyber_py.ml_kem import ML_KEM_768
    dk, sk_x, pk_x = private
    ct_m, ct_x = enc[:1088], enc[1088:]
    ss_m = ML_KEM_768.decaps(dk, ct_m)
    ss_x = _x25519(sk_x, ct_x)
    return hashlib.sha3_256(ss_m + ss_x + ct_x + pk_x + XWING_LABEL).digest()


SUITE = b"HPKE" + (0x647A).to_bytes(2, "big") + (0x0001).to_bytes(2, "big") + (0x0003).to_bytes(2, "big")
INFO = b"age-encryption.org/mlkem768x25519"


def _extract(salt, ikm):
    return hmac.new(salt or bytes(32), ikm, hashlib.sha256).digest()


def _expand(prk, info, length):
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def _labeled_extract(salt, label, ikm):
    return _extract(salt, b"HPKE-v1" + SUITE + label + ikm)


def _labeled_expand(prk, label, info, length):
    return _expand(prk, length.to_bytes(2, "big") + b"HPKE-v1" + SUITE + label + info, length)


def hpke_key(shared_secret):
    """RFC 9180's KeySchedule for mode_base: the AEAD key and base nonce (sequence 0)."""
    context = b"\x00" + _labeled_extract(b"", b"psk_id_hash", b"") + _labeled_extract(b"", b"info_hash", INFO)
    secret = _labeled_extract(shared_secret, b"secret", b"")
    return _labeled_expand(secret, b"key", context, 32), _labeled_expand(secret, b"base_nonce", context, 12)


def chacha(key):
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    return ChaCha20Poly1305(key)


# --- The age format ----------------------------------------------------------------------------
def b64(data):
    return base64.b64encode(data).decode().rstrip("=")


def unb64(text):
    data = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    if b64(data) != text:
        raise ValueError("non-canonical base64")
    return data


def _hkdf(ikm, salt, info):
    return _expand(_extract(salt, ikm), info, 32)


def age_encrypt(plaintext, public_key):
    file_key = os.urandom(16)
    shared, enc = xwing_encapsulate(public_key)
    key, nonce = hpke_key(shared)
    body = chacha(key).encrypt(nonce, file_key, b"")
    lines = [b64(body)[i:i + 64] for i in range(0, len(b64(body)), 64)] or [""]
    if len(lines[-1]) == 64:
        lines.append("")
    header = "age-encryption.org/v1\n-> mlkem768x25519 " + b64(enc) + "\n" + "\n".join(lines) + "\n---"
    mac = hmac.new(_hkdf(file_key, b"", b"header"), header.encode(), hashlib.sha256).digest()
    out = bytearray((header + " " + b64(mac) + "\n").encode())
    payload_nonce = os.urandom(16)
    out += payload_nonce
    aead = chacha(_hkdf(file_key, payload_nonce, b"payload"))
    chunks = [plaintext[i:i + 65536] for i in range(0, len(plaintext), 65536)] or [b""]
    for counter, chunk in enumerate(chunks):
        last = b"\x01" if counter == len(chunks) - 1 else b"\x00"
        out += aead.encrypt(counter.to_bytes(11, "big") + last, chunk, None)
    return bytes(out)


def age_decrypt(data, private):
    """The plaintext; raises ValueError on anything the spec refuses."""
    end = data.index(b"\n---")
    header_end = data.index(b"\n", end + 1)
    lines = data[:end].decode().split("\n")
    if lines[0] != "age-encryption.org/v1":
        raise ValueError("not an age v1 file")
    stanzas, index = [], 1
    while index < len(lines):
        arguments = lines[index][3:].split(" ")
        body, index = "", index + 1
        while index < len(lines) and not lines[index].startswith("-> "):
            body += lines[index]
            index += 1
        stanzas.append((arguments, unb64(body)))
    file_key = None
    for arguments, body in stanzas:
        if arguments[0] != "mlkem768x25519":
            continue
        if len(arguments) != 2 or len(unb64(arguments[1])) != 1120 or len(body) != 32:
            raise ValueError("malformed mlkem768x25519 stanza")
        enc = unb64(arguments[1])
        key, nonce = hpke_key(xwing_decapsulate(private, enc))
        try:
            file_key = chacha(key).decrypt(nonce, body, b"")
            break
        except Exception:
            continue
    if file_key is None:
        raise ValueError("no stanza opened")
    mac = hmac.new(_hkdf(file_key, b"", b"header"), data[:end + 4], hashlib.sha256).digest()
    if not hmac.compare_digest(mac, unb64(data[end + 5:header_end].decode())):
        raise ValueError("the header MAC does not verify")
    payload = data[header_end + 1:]
    aead = chacha(_hkdf(file_key, payload[:16], b"payload"))
    sealed = [payload[i:i + 65552] for i in range(16, len(payload), 65552)]
    return b"".join(aead.decrypt(counter.to_bytes(11, "big") + (b"\x01" if counter == len(sealed) - 1 else b"\x00"), chunk, None)
                    for counter, chunk in enumerate(sealed))


def identity_keys(text):
    hrp, seed = bech32_decode(text)
    if hrp != "age-secret-key-pq-" or len(seed) != 32:
        raise ValueError("not a post-quantum age identity")
    return xwing_keys(seed)


def vector(name):
    raw = open(os.path.join(VECTORS, name), "rb").read()
    head, _, body = raw.partition(b"\n\n")
    fields = dict(line.split(": ", 1) for line in head.decode().splitlines())
    return fields, body


def main():
    options = interop.options(__doc__)
    try:
        import kyber_py  # noqa: F401
        import cryptography  # noqa: F401
    except ImportError as error:
        interop.not_installed(error.name)
    binary = os.path.join(ROOT, options.build_dir, options.configuration, "brados")
    home = tempfile.mkdtemp(prefix="brados-check-age-pq-")
    environment = dict(os.environ, BRADOS_HOME=home, HOME=home, BRADOS_CREDENTIALS_STORE="file")
    environment.pop("BRADOS_SERVER", None)
    check = interop.Checks()
    def brados(*arguments):
        return subprocess.run([binary, *arguments], env=environment, capture_output=True, text=True, timeout=120)

    # The peer on the specification's own data.
    spec = open(os.path.join(ROOT, "Tests", "AgeEncryptionTests", "AgeHybridTests.swift")).read()
    spec_identity = spec.split('specIdentity = "')[1].split('"')[0]
    spec_recipient = spec.split('specRecipient = "')[1].split('"')[0]
    public, _ = identity_keys(spec_identity)
    check("peer: the specification's identity gives its age1pq1 recipient", bech32_encode("age1pq", public) == spec_recipient)
    fields, body = vector("hybrid")
    try:
        opened = hashlib.sha256(age_decrypt(body, identity_keys(fields["identity"])[1])).hexdigest() == fields["payload"]
    except Exception as error:  # noqa: BLE001
        print("     ", error)
        opened = False
    check("peer: C2SP's hybrid vector decrypts to its payload", opened)

    # brados -> peer.
    generated = brados("keys", "generate", "--post-quantum")
    recipient = generated.stdout.strip()
    check("brados keys generate --post-quantum prints an age1pq1 recipient", generated.returncode == 0 and recipient.startswith("age1pq1"))
    if generated.returncode != 0:
        print("     ", generated.stderr.strip())
        check.finish()
    key_file = os.path.join(home, "config", "keys", "default.txt")
    identity = next((line for line in open(key_file).read().splitlines() if line.startswith("AGE-SECRET-KEY-PQ-1")), "")
    check("the key file holds an AGE-SECRET-KEY-PQ-1 identity", identity)
    if not identity:
        check.finish()
    public, private = identity_keys(identity)
    check("peer: the key file's identity gives the recipient brados printed", bech32_encode("age1pq", public) == recipient)
    shown = brados("mealplan", "show")
    archive = os.path.join(home, "backup.tar.zst.age")
    exported = brados("cache", "export", "--encrypt", "-o", archive)
    check("brados cache export --encrypt", shown.returncode == 0 and exported.returncode == 0)
    plain = os.path.join(home, "backup.tar.zst")
    try:
        with open(plain, "wb") as out:
            out.write(age_decrypt(open(archive, "rb").read(), private))
        listed = subprocess.run(["tar", "--zstd", "-tf", plain], capture_output=True, text=True).stdout.splitlines()
    except Exception as error:  # noqa: BLE001
        print("     ", error)
        listed = []
    check("peer: opens brados's archive (stanza, header MAC, every chunk); tar lists manifest.json first",
          listed[:1] == ["manifest.json"])

    # peer -> brados.
    sealed = os.path.join(home, "from-peer.age")
    with open(sealed, "wb") as out:
        out.write(age_encrypt(open(plain, "rb").read() if listed else b"", public))
    verified = brados("cache", "verify", sealed)
    check("brados cache verify opens the peer's file", verified.returncode == 0)
    imported = brados("cache", "import", sealed, "--as", "from-peer")
    check("brados cache import --as from-peer, then its mealplan offline",
          imported.returncode == 0 and brados("--offline", "--profile", "from-peer", "mealplan", "show").returncode == 0)
    tampered = bytearray(open(sealed, "rb").read())
    tampered[-20] ^= 1
    with open(sealed, "wb") as out:
        out.write(tampered)
    check("a byte changed in the peer's file: brados refuses it (exit 8)", brados("cache", "verify", sealed).returncode == 8)

    check.finish()


if __name__ == "__main__":
    main()
