#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the bash completion of timesink-cli, and the per-command part of its man page, from the CLI's own help,
so neither can disagree with it.

Usage: gen-cli-docs.py TIMESINK_CLI COMPLETION_OUTPUT MAN_INCLUDE_OUTPUT

The man include is a help2man `--include` file with one subsection per command holding its --help verbatim.

Commands come from `timesink-cli --help` ("Commands:" lines indented by two spaces); each command's
options from `timesink-cli COMMAND --help`: every `-x`/`--long` token in it, taking a value when the
usage shows it followed by a word (`[--top N]`, `-o FILE`), and `--format a|b|c` lists its choices.
"""

import re
import subprocess
import sys


def run_help(cli, *args):
    done = subprocess.run([cli, *args, "--help"], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        sys.exit(f"gen-bash-completion: '{' '.join([cli, *args, '--help'])}' exited {done.returncode}")
    return done.stdout


def commands_of(top_help):
    names = []
    in_commands = False
    for line in top_help.splitlines():
        if line.strip() == "Commands:":
            in_commands = True
            continue
        if in_commands:
            if not line.strip():
                break
            match = re.match(r"^  ([a-z][a-z0-9-]*)\b", line)
            if match:
                names.append(match.group(1))
    if not names:
        sys.exit("gen-bash-completion: no 'Commands:' section in timesink-cli --help")
    return names


OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][a-zA-Z0-9-]*)")


def options_of(command_help):
    """{option: (kind, [choices])} for one command; kind is flag, file (FILE/PATH/DIR), value or choice."""
    options = {}
    for line in command_help.splitlines():
        for match in OPTION.finditer(line):
            name = match.group(1)
            rest = line[match.end():]
            value = re.match(r"[ =]([a-z0-9]+(?:\|[a-z0-9]+)+|[A-Z][A-Z0-9:_.]*)(?=[\]\s,]|$)", rest)
            kind, choices = options.get(name, ("flag", []))
            if value:
                word = value.group(1)
                if "|" in word:
                    kind, choices = "choice", word.split("|")
                elif kind != "choice":
                    kind = "file" if word in ("FILE", "PATH", "DIR") else "value"
            options[name] = (kind, choices)
    return options


def roff_verbatim(text):
    """Text shown as-is in a man page: escape backslashes, protect lines that roff would read as requests."""
    out = []
    for line in text.rstrip("\n").splitlines():
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def man_include(cli, commands):
    parts = ["[COMMANDS AND OPTIONS]"]
    for command in commands:
        parts.append(f'.SS "timesink-cli {command}"')
        parts.append(".nf")
        parts.append(roff_verbatim(run_help(cli, command)))
        parts.append(".fi")
    return "\n".join(parts) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cli, output, man_output = sys.argv[1], sys.argv[2], sys.argv[3]
    commands = commands_of(run_help(cli))
    with open(man_output, "w", encoding="utf-8") as f:
        f.write(man_include(cli, commands))
    lines = [
        "# bash completion for timesink-cli; generated from its --help by packaging/gen-cli-docs.py",
        "_timesink_cli()",
        "{",
        "    local cur prev command",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
        f"        COMPREPLY=($(compgen -W \"{' '.join(commands)} --help --version\" -- \"$cur\"))",
        "        return",
        "    fi",
        '    command="${COMP_WORDS[1]}"',
        '    case "$command" in',
    ]
    for command in commands:
        options = options_of(run_help(cli, command))
        lines.append(f"    {command})")
        lines.append('        case "$prev" in')
        for name, (kind, choices) in sorted(options.items()):
            if kind == "choice":
                lines.append(f"            {name}) COMPREPLY=($(compgen -W \"{' '.join(choices)}\" -- \"$cur\")); return ;;")
        for kind, reply in (("file", 'COMPREPLY=($(compgen -f -- "$cur"))'), ("value", "COMPREPLY=()")):
            names = [n for n, (k, _) in sorted(options.items()) if k == kind]
            if names:
                lines.append(f"            {'|'.join(names)}) {reply}; return ;;")
        lines.append("        esac")
        lines.append('        if [[ "$cur" == -* ]]; then')
        lines.append(f"            COMPREPLY=($(compgen -W \"{' '.join(sorted(options))}\" -- \"$cur\"))")
        lines.append("            return")
        lines.append("        fi")
        lines.append("        ;;")
    lines += [
        "    esac",
        '    COMPREPLY=($(compgen -f -- "$cur"))',
        "}",
        "complete -o filenames -o bashdefault -F _timesink_cli timesink-cli",
        "",
    ]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
