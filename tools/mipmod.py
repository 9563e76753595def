#!/usr/bin/env python3
"""tools/mipmod.py -- make a loadable module (include/moteip/loader.h's
"MPM1" format) from a relocatable object file (ELF32, little-endian, ARM).

  tools/mipmod.py OBJECT.o MODULE.mpm --init SYMBOL [--version N]

The object is one translation unit compiled for the target with
-mlong-calls (every call to the core goes through a literal word, so the
only relocation is R_ARM_ABS32), -fno-common and no -ffunction-sections:
    arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os -mlong-calls -fno-common \\
        -ffreestanding -fno-unwind-tables -c prog.c -o prog.o
Its .text and .rodata* become the module's text, .data its data, .bss its
bss; each R_ARM_ABS32 becomes an IMAGE relocation (a word naming a place in
the module: the addend rewritten as an offset in the image) or a CORE
relocation (a symbol the object leaves undefined: looked up by name in the
firmware's table when loaded). Anything else (another relocation type, a
section the format has no place for, an undefined symbol used otherwise) is
refused with a message naming it; exit status 1 then, 2 on usage errors.
"""
from __future__ import annotations

import argparse
import struct
import sys
import zlib

SHT_PROGBITS, SHT_SYMTAB, SHT_NOBITS, SHT_REL, SHT_RELA = 1, 2, 8, 9, 4
SHF_ALLOC = 2
R_ARM_NONE, R_ARM_ABS32, R_ARM_V4BX = 0, 2, 40
EM_ARM = 40
ARCH_THUMB = 1


class ModError(Exception):
    pass


def sections(elf: bytes):
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        raise ModError("not a 32-bit little-endian ELF file")
    e_type, e_machine = struct.unpack_from("<HH", elf, 16)
    if e_type != 1:
        raise ModError("not a relocatable object (ELF type %d)" % e_type)
    if e_machine != EM_ARM:
        raise ModError("not an ARM object (machine %d)" % e_machine)
    shoff, = struct.unpack_from("<I", elf, 32)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 46)
    out = []
    for i in range(shnum):
        f = struct.unpack_from("<IIIIIIIIII", elf, shoff + i * shentsize)
        out.append(dict(zip(("name", "type", "flags", "addr", "offset", "size", "link",
                             "info", "addralign", "entsize"), f)))
    strtab = out[shstrndx]
    for s in out:
        end = elf.index(b"\0", strtab["offset"] + s["name"])
        s["sname"] = elf[strtab["offset"] + s["name"]:end].decode()
    return out


def symbols(elf: bytes, secs) -> list[dict]:
    symtab = next((s for s in secs if s["type"] == SHT_SYMTAB), None)
    if symtab is None:
        raise ModError("no symbol table")
    strs = secs[symtab["link"]]
    out = []
    for k in range(symtab["size"] // 16):
        name, value, size, info, other, shndx = struct.unpack_from(
            "<IIIBBH", elf, symtab["offset"] + 16 * k)
        end = elf.index(b"\0", strs["offset"] + name)
        out.append({"name": elf[strs["offset"] + name:end].decode(), "value": value,
                    "shndx": shndx, "type": info & 15, "bind": info >> 4})
    return out


def build(elf: bytes, init_name: str, version: int) -> bytes:
    secs = sections(elf)
    syms = symbols(elf, secs)
    place: dict[int, tuple[str, int]] = {}      # section index -> (part, offset in part)
    parts = {"text": bytearray(), "data": bytearray(), "bss": 0}

    def put(idx: int, part: str) -> None:
        s = secs[idx]
        align = max(s["addralign"], 1)
        if part == "bss":
            parts["bss"] = (parts["bss"] + align - 1) // align * align
            place[idx] = ("bss", parts["bss"])
            parts["bss"] += s["size"]
            return
        buf = parts[part]
        buf.extend(b"\0" * ((-len(buf)) % align))
        place[idx] = (part, len(buf))
        buf.extend(elf[s["offset"]:s["offset"] + s["size"]])

    for i, s in enumerate(secs):
        if not s["flags"] & SHF_ALLOC or s["size"] == 0:
            continue
        n = s["sname"]
        if n == ".text" or n.startswith(".rodata"):
            put(i, "text")
        elif n == ".data":
            put(i, "data")
        elif n == ".bss" or (s["type"] == SHT_NOBITS and n.startswith(".bss")):
            put(i, "bss")
        else:
            raise ModError(f"section {n}: the module format has no place for it "
                           "(compile without -ffunction-sections / unwind tables)")
    for sym in syms:
        if sym["shndx"] == 0xFFF2 and sym["name"]:
            raise ModError(f"common symbol {sym['name']}: compile with -fno-common")
    text = parts["text"]
    text.extend(b"\0" * ((-len(text)) % 4))
    data = parts["data"]
    data.extend(b"\0" * ((-len(data)) % 4))
    base = {"text": 0, "data": len(text), "bss": len(text) + len(data)}
    image = bytearray(text + data)

    def image_offset(idx: int, off: int) -> int:
        part, at = place[idx]
        return base[part] + at + off

    relocs = []
    names = bytearray()
    name_at: dict[str, int] = {}
    for s in secs:
        if s["type"] == SHT_RELA:
            raise ModError(f"{s['sname']}: RELA relocations are not used on ARM")
        if s["type"] != SHT_REL or s["info"] not in place:
            continue
        target = s["info"]
        for k in range(s["size"] // 8):
            r_off, r_info = struct.unpack_from("<II", elf, s["offset"] + 8 * k)
            rtype, rsym = r_info & 0xFF, r_info >> 8
            if rtype in (R_ARM_NONE, R_ARM_V4BX):
                continue
            sym = syms[rsym]
            if rtype != R_ARM_ABS32:
                raise ModError(f"relocation type {rtype} at {secs[target]['sname']}+{r_off:#x} "
                               f"(symbol {sym['name'] or '?'}): only R_ARM_ABS32 is supported; "
                               "compile with -mlong-calls")
            at = image_offset(target, r_off)
            if at % 4:
                raise ModError(f"unaligned word at {secs[target]['sname']}+{r_off:#x}")
            addend, = struct.unpack_from("<I", image, at)
            if sym["shndx"] == 0:
                if sym["name"] not in name_at:
                    name_at[sym["name"]] = len(names)
                    names.extend(sym["name"].encode() + b"\0")
                relocs.append((at, 2, name_at[sym["name"]]))
            else:
                if sym["shndx"] not in place:
                    raise ModError(f"symbol {sym['name'] or '?'} lies in a section the module "
                                   "does not keep")
                value = image_offset(sym["shndx"], sym["value"] + addend)
                struct.pack_into("<I", image, at, value & 0xFFFFFFFF)
                relocs.append((at, 1, 0))
    init = next((s for s in syms if s["name"] == init_name and s["shndx"] not in (0, 0xFFF1)),
                None)
    if init is None or init["shndx"] not in place or place[init["shndx"]][0] != "text":
        raise ModError(f"init function {init_name}: not defined in the object's text")
    init_off = image_offset(init["shndx"], init["value"] & ~1) | (init["value"] & 1)
    if len(names) > 0xFFFF or len(relocs) > 0xFFFF:
        raise ModError("too many relocations or names for the format")
    body = bytes(image) + b"".join(struct.pack("<IBBH", a, k, 0, g) for a, k, g in relocs) \
        + bytes(names)
    hdr = b"MPM1" + struct.pack("<BBHIIIIHHI", ARCH_THUMB, version, 32, len(text), len(data),
                                parts["bss"], init_off, len(relocs), len(names),
                                zlib.crc32(body))
    return hdr + body


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("object")
    ap.add_argument("module")
    ap.add_argument("--init", required=True, help="the init function's symbol")
    ap.add_argument("--version", type=int, default=1, help="0..255 (default 1)")
    a = ap.parse_args()
    if not 0 <= a.version <= 255:
        ap.error("--version must be 0..255")
    try:
        with open(a.object, "rb") as f:
            mod = build(f.read(), a.init, a.version)
    except OSError as e:
        print(f"mipmod: {e}", file=sys.stderr)
        return 1
    except (ModError, struct.error, ValueError, IndexError) as e:
        print(f"mipmod: {a.object}: {e}", file=sys.stderr)
        return 1
    with open(a.module, "wb") as f:
        f.write(mod)
    return 0


if __name__ == "__main__":
    sys.exit(main())
