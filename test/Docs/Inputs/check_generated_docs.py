"""Checks that the generated dialect and pass docs cover the ODS.

Reads every add_mlir_doc(TD OUTPUT DIR/ COMMAND ...) under include/,
dumps each TD file's records with llvm-tblgen --dump-json and checks
that OUTPUT.md (under the build's docs/) exists and has a heading for
every op of a memopt dialect (-gen-op-doc), every memopt op interface
(-gen-op-interface-docs), every pass (-gen-pass-doc) and the dialect
(-gen-dialect-doc). Then checks that every op and pass of every TD file
under include/ is covered by some add_mlir_doc, so that a new dialect or
pass file without generated docs fails too (a fragment that parses only
inside the file including it is checked through that file). Prints one line per problem
and exits 1 if there is one.

    check_generated_docs.py --src SRC_ROOT --docs BUILD/docs
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

DOC_CALL = re.compile(r"add_mlir_doc\((\w+)\s+(\w+)\s+(\S+)\s+(-[\w-]+)"
                      r"(?:\s+-dialect=(\w+))?\)")


def llvm_include():
    out = subprocess.run(["llvm-config", "--includedir"], check=True,
                         capture_output=True, text=True).stdout
    return out.strip()


def records(td, include_dirs, check=True):
    """The records of `td` as llvm-tblgen's JSON; None when it does not
    parse on its own and check is False."""
    cmd = ["llvm-tblgen", "--dump-json", td]
    for directory in include_dirs:
        cmd += ["-I", directory]
    proc = subprocess.run(cmd, check=check, capture_output=True, text=True)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def included(td, all_tds):
    """True when another .td file includes `td` (a fragment such as an op
    group of a dialect, parsed only as part of its includer)."""
    name = os.path.basename(td)
    pattern = re.compile(r'include\s+"[^"]*\b%s"' % re.escape(name))
    return any(pattern.search(open(other).read())
               for other in all_tds if other != td)


def ops(dump):
    """'dialect.op' for every op of a memopt dialect."""
    names = set()
    for name in dump["!instanceof"].get("Op", []):
        record = dump[name]
        dialect = dump[record["opDialect"]["def"]]
        if "memopt" in dialect["cppNamespace"]:
            names.add("%s.%s" % (dialect["name"], record["opName"]))
    return names


def interfaces(dump):
    """The C++ names of memopt's op interfaces, as the doc heads them."""
    return {name for name in dump["!instanceof"].get("OpInterface", [])
            if "memopt" in dump[name].get("cppNamespace", "")}


def passes(dump):
    return {dump[name]["argument"]
            for name in dump["!instanceof"].get("PassBase", [])}


def headings(kind, dump, dialect):
    """What the generated markdown must contain, one entry per item."""
    if kind == "-gen-op-doc":
        return {"### `%s`" % op: op for op in ops(dump)}
    if kind == "-gen-op-interface-docs":
        return {"(`%s`)" % name: name for name in interfaces(dump)}
    if kind == "-gen-pass-doc":
        return {"### `-%s`" % arg: arg for arg in passes(dump)}
    if kind == "-gen-dialect-doc":
        return {"# '%s' Dialect" % dialect: dialect}
    raise SystemExit("error: add_mlir_doc with %s: this check knows "
                     "-gen-op-doc, -gen-op-interface-docs, -gen-pass-doc "
                     "and -gen-dialect-doc; teach it the new one" % kind)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", required=True)
    parser.add_argument("--docs", required=True)
    args = parser.parse_args()
    include = os.path.join(args.src, "include")
    include_dirs = [include, llvm_include()]
    problems, documented = [], set()
    for cmake in sorted(glob.glob(os.path.join(include, "**",
                                               "CMakeLists.txt"),
                                  recursive=True)):
        for td, output, directory, kind, dialect in DOC_CALL.findall(
                open(cmake).read()):
            dump = records(os.path.join(os.path.dirname(cmake), td + ".td"),
                           include_dirs)
            documented |= ops(dump) | passes(dump)
            md = os.path.join(args.docs, directory, output + ".md")
            if not os.path.exists(md):
                problems.append("%s is missing: build the mlir-doc target"
                                % md)
                continue
            text = open(md).read()
            for heading, item in sorted(headings(kind, dump,
                                                 dialect).items()):
                if heading not in text:
                    problems.append("%s does not document %s" % (md, item))
    all_tds = sorted(glob.glob(os.path.join(include, "**", "*.td"),
                               recursive=True))
    for td in all_tds:
        dump = records(td, include_dirs, check=False)
        if dump is None:
            if not included(td, all_tds):
                problems.append("%s does not parse on its own and no .td "
                                "includes it" % os.path.relpath(td, args.src))
            continue
        for item in sorted((ops(dump) | passes(dump)) - documented):
            problems.append("%s defines %s but no add_mlir_doc generates "
                            "its docs" % (os.path.relpath(td, args.src),
                                          item))
    for problem in problems:
        print("error: " + problem)
    print("checked %d ops and passes" % len(documented))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
