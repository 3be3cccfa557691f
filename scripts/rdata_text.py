#!/usr/bin/env python3
"""Extract the text of R character vectors from an R lazy-load database
(`data/Rdata.rdx` + `data/Rdata.rdb` of an installed R package), with the
standard library only (used by `scripts/fetch_corpus.sh`; no R needed).

Format (R's `serialize`, XDR, versions 2 and 3): `Rdata.rdx` is a gzip'd
serialized list `variables` (name -> integer [offset, length]) ...; each object
in `Rdata.rdb` at `offset` is a 4-byte big-endian uncompressed length followed
by a zlib stream holding the serialized object. Only the types such objects
use are decoded (lists, pairlists, symbols, character, logical, integer and
double vectors, attributes, references to earlier symbols); anything else stops
with an error rather than guessing.

    python3 scripts/rdata_text.py PKGDIR/data OUTDIR    # OUTDIR/<name>.txt, one line per element
"""

import gzip
import struct
import sys
import zlib
from pathlib import Path

NILVALUE, REFSXP, GLOBALENV, EMPTYENV, BASEENV, MISSINGARG = 254, 255, 253, 242, 241, 251


class Reader:
    def __init__(self, data: bytes):
        if data[:2] != b"X\n":
            raise ValueError("not an XDR R serialization")
        self.data, self.pos, self.refs = data, 2, []
        version = self.int()
        self.int(), self.int()  # writer R version, minimal reader version
        if version == 3:
            self.bytes(self.int())  # native encoding name
        elif version != 2:
            raise ValueError(f"serialization version {version}")

    def int(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return value

    def bytes(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def length(self) -> int:
        n = self.int()
        if n == -1:  # long vector: two more ints
            hi, lo = self.int(), self.int()
            n = (hi << 32) | (lo & 0xFFFFFFFF)
        return n

    def item(self):
        flags = self.int()
        kind, has_attr, has_tag = flags & 0xFF, bool(flags & (1 << 9)), bool(flags & (1 << 10))
        if kind in (NILVALUE, GLOBALENV, EMPTYENV, BASEENV, MISSINGARG):
            return None
        if kind == REFSXP:
            return self.refs[(flags >> 8) - 1]
        if kind == 1:  # SYMSXP
            name = self.item()
            self.refs.append(name)
            return name
        if kind == 9:  # CHARSXP
            n = self.int()
            return None if n == -1 else self.bytes(n).decode("utf-8")
        if kind == 2:  # LISTSXP (pairlist): attr, tag, car, cdr
            out = {}
            while True:
                attr = self.item() if has_attr else None
                tag = self.item() if has_tag else None
                out[tag] = self.item()
                del attr
                flags = self.int()
                kind, has_attr, has_tag = flags & 0xFF, bool(flags & (1 << 9)), bool(flags & (1 << 10))
                if kind == NILVALUE:
                    return out
                if kind != 2:
                    raise ValueError(f"pairlist tail of type {kind}")
        if kind in (16, 19, 20):  # STRSXP, VECSXP, EXPRSXP
            value = [self.item() for _ in range(self.length())]
        elif kind in (10, 13):  # LGLSXP, INTSXP
            n = self.length()
            value = list(struct.unpack_from(f">{n}i", self.data, self.pos))
            self.pos += 4 * n
        elif kind == 14:  # REALSXP
            n = self.length()
            value = list(struct.unpack_from(f">{n}d", self.data, self.pos))
            self.pos += 8 * n
        else:
            raise ValueError(f"R type {kind} not decoded")
        if has_attr:
            attributes = self.item()
            names = attributes.get("names")
            if names is not None and kind == 19:
                return dict(zip(names, value))
        return value


def load(data_dir: Path) -> dict:
    """name -> the decoded object, for every variable in the database."""
    index = Reader(gzip.decompress((data_dir / "Rdata.rdx").read_bytes())).item()
    rdb = (data_dir / "Rdata.rdb").read_bytes()
    out = {}
    for name, (offset, length) in index["variables"].items():
        blob = rdb[offset : offset + length]
        size = struct.unpack(">I", blob[:4])[0]
        raw = zlib.decompress(blob[4:])
        if len(raw) != size:
            raise ValueError(f"{name}: {len(raw)} bytes, header says {size}")
        out[name] = Reader(raw).item()
    return out


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    data_dir, out_dir = Path(argv[0]), Path(argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, value in sorted(load(data_dir).items()):
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ValueError(f"{name} is not a character vector without NA")
        (out_dir / f"{name}.txt").write_text("".join(line + "\n" for line in value), encoding="utf-8")
        print(f"{name}: {len(value)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
