"""Families about strings and C++ containers used slowly."""
from __future__ import annotations

import random

from ._types import Ctx, Variant, pick_name

CLASSES = {
    "vowel": "c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'",
    "space": "c == ' '",
    "upper": "c >= 'A' && c <= 'Z'",
    "lower": "c >= 'a' && c <= 'z'",
    "hex_letter": "(c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')",
}


def string_scan_c(rng: random.Random) -> Variant:
    """A C string loop that calls strlen() in its condition, so every step rescans the string."""
    ctx = Ctx("c", rng.choice(["int", "size_t", "long"]))
    ct = rng.choice(["int", "long", "unsigned"])
    op = rng.choice(["char_hist", "classes", "runs", "positions_hist"])
    s = rng.choice(["s", "text", "str", "line"])
    cond = f"i < strlen({s})" if ctx.idx == "size_t" else f"i < ({ctx.idx})strlen({s})"
    if op == "char_hist":
        name = pick_name(rng, ["char_histogram", "byte_counts", "letter_frequencies"])
        sig = f"void {name}(const char *{s}, {ct} *counts)"
        ann = "size(counts)=256"
        init = f"    for (int k = 0; k < 256; k++)\n        counts[k] = 0;\n"
        body = f"counts[(unsigned char){s}[i]]++;"
        what = "Count every byte value of the string"
    elif op == "classes":
        picks = rng.sample(sorted(CLASSES), 3)
        name = pick_name(rng, ["classify_chars", "char_class_counts", "count_kinds"])
        sig = f"void {name}(const char *{s}, {ct} *counts)"
        ann = "size(counts)=4"
        init = f"    for (int k = 0; k < 4; k++)\n        counts[k] = 0;\n"
        arms = "".join(f"        {'else ' if k else ''}if ({CLASSES[p]})\n            counts[{k}]++;\n"
                       for k, p in enumerate(picks))
        body = f"{{\n        const char c = {s}[i];\n{arms}        else\n            counts[3]++;\n    }}"
        what = f"Count {', '.join(picks)} and other characters"
    elif op == "runs":
        name = pick_name(rng, ["run_lengths_hist", "space_run_histogram", "gap_lengths"])
        sig = f"void {name}(const char *{s}, {ct} *hist)"
        ann = "size(hist)=16"
        init = f"    for (int k = 0; k < 16; k++)\n        hist[k] = 0;\n    int run = 0;\n"
        body = (f"{{\n        if ({s}[i] == ' ') {{\n            run++;\n        }} else if (run > 0) {{\n"
                f"            hist[run < 15 ? run : 15]++;\n            run = 0;\n        }}\n    }}")
        what = "Histogram of the lengths of runs of spaces (a run at the end is not counted)"
    else:
        name = pick_name(rng, ["position_mod_counts", "letters_by_slot", "column_letter_counts"])
        m = rng.choice([4, 8, 10])
        sig = f"void {name}(const char *{s}, {ct} *slots)"
        ann = f"size(slots)={m}"
        init = f"    for (int k = 0; k < {m}; k++)\n        slots[k] = 0;\n"
        body = f"if ({s}[i] != ' ')\n        slots[i % {m}]++;"
        what = f"For each position modulo {m}, how many characters there are not spaces"
    loop = f"    for ({ctx.idx} i = 0; {cond}; i++)\n        {body}\n"
    ref_loop = (f"    const {ctx.idx} len = ({ctx.idx})strlen({s});\n"
                f"    for ({ctx.idx} i = 0; i < len; i++)\n        {body}\n")
    head = "#include <stddef.h>\n#include <string.h>\n\n"
    note = ctx.comment(f"{what}; strlen() runs on every iteration.\nperfalign: {ann}")
    return Variant(name, "c", f"{head}{note}{sig} {{\n{init}{loop}}}\n", f"{head}{sig} {{\n{init}{ref_loop}}}\n",
                   {"op": op, "count": ct, "idx": ctx.idx})


def string_build_cpp(rng: random.Random) -> Variant:
    """std::string built by copying: s = s + c, insert at the front, erase in a loop."""
    op = rng.choice(["concat_filter", "prepend_reverse", "erase_each", "concat_map"])
    src, dst = rng.choice([("s", "out"), ("text", "result"), ("in", "clean"), ("line", "buf")])
    head = "#include <cstddef>\n#include <string>\n\n"
    cls = rng.choice(sorted(CLASSES))
    test = CLASSES[cls]
    if op == "concat_filter":
        keep = rng.choice([True, False])
        name = pick_name(rng, [f"keep_{cls}" if keep else f"drop_{cls}", "filter_chars", "select_letters"])
        sig = f"void {name}(const std::string &{src}, std::string &{dst})"
        cnd = f"({test})" if keep else f"!({test})"
        orig = (f"    {dst} = \"\";\n    for (std::size_t i = 0; i < {src}.size(); i++) {{\n"
                f"        const char c = {src}[i];\n"
                f"        if ({cnd})\n            {dst} = {dst} + c;\n    }}\n")
        ref = (f"    {dst}.clear();\n    {dst}.reserve({src}.size());\n    for (const char c : {src})\n"
               f"        if ({cnd})\n            {dst} += c;\n")
        what = f"{'Keep' if keep else 'Drop'} the {cls} characters, appending with out = out + c"
    elif op == "concat_map":
        name = pick_name(rng, ["to_upper_copy", "shout", "capitalize_all", "swap_case_copy"])
        sig = f"void {name}(const std::string &{src}, std::string &{dst})"
        conv = rng.choice(["c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c",
                           "c == ' ' ? '_' : c", "c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c"])
        orig = (f"    {dst} = \"\";\n    for (std::size_t i = 0; i < {src}.size(); i++) {{\n"
                f"        const char c = {src}[i];\n"
                f"        {dst} = {dst} + static_cast<char>({conv});\n    }}\n")
        ref = (f"    {dst}.resize({src}.size());\n    for (std::size_t i = 0; i < {src}.size(); i++) {{\n"
               f"        const char c = {src}[i];\n        {dst}[i] = static_cast<char>({conv});\n    }}\n")
        what = "Map every character, appending with out = out + c"
    elif op == "prepend_reverse":
        name = pick_name(rng, ["reversed_copy", "mirror_text", "reverse_string"])
        sig = f"void {name}(const std::string &{src}, std::string &{dst})"
        orig = (f"    {dst}.clear();\n    for (std::size_t i = 0; i < {src}.size(); i++)\n"
                f"        {dst}.insert({dst}.begin(), {src}[i]);\n")
        ref = f"    {dst}.assign({src}.rbegin(), {src}.rend());\n"
        what = "The string reversed, built by inserting each character at the front"
    else:
        name = pick_name(rng, [f"strip_{cls}", "remove_chars", "squeeze_out"])
        sig = f"void {name}(std::string &{src})"
        orig = (f"    std::size_t i = 0;\n    while (i < {src}.size()) {{\n        const char c = {src}[i];\n"
                f"        if ({test})\n            {src}.erase(i, 1);\n        else\n            i++;\n    }}\n")
        ref = (f"    std::size_t w = 0;\n    for (std::size_t i = 0; i < {src}.size(); i++) {{\n"
               f"        const char c = {src}[i];\n        if (!({test}))\n            {src}[w++] = c;\n    }}\n"
               f"    {src}.resize(w);\n")
        what = f"Remove the {cls} characters in place, erasing them one at a time"
    note = f"// {what}: O(n^2).\n"
    return Variant(name, "cpp", f"{head}{note}{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"op": op, "class": cls})


def cpp_ordered_containers(rng: random.Random) -> Variant:
    """std::map / std::set / std::list where a vector, a sort or an unordered_map does."""
    t = rng.choice(["int", "long", "short", "unsigned"])
    op = rng.choice(["map_distinct", "set_sum_distinct", "map_max_count", "list_sum"])
    v = rng.choice(["v", "keys", "values", "ids"])
    name = pick_name(rng, {"map_distinct": ["distinct_count", "how_many_kinds", "count_kinds"],
                           "set_sum_distinct": ["sum_of_distinct", "distinct_total", "unique_sum"],
                           "map_max_count": ["top_frequency", "largest_group", "modal_count"],
                           "list_sum": ["weighted_list_total", "staged_sum", "buffered_total"]}[op], t)
    if op == "map_distinct":
        sig = f"long {name}(const std::vector<{t}> &{v})"
        orig = (f"    std::map<{t}, long> m;\n    for (std::size_t i = 0; i < {v}.size(); i++)\n        m[{v}[i]]++;\n"
                f"    return static_cast<long>(m.size());\n")
        ref = (f"    std::vector<{t}> s({v});\n    std::sort(s.begin(), s.end());\n"
               f"    return static_cast<long>(std::unique(s.begin(), s.end()) - s.begin());\n")
        inc_o, inc_r = ("map", "vector"), ("algorithm", "vector")
        what = "Number of distinct values, counted in a std::map"
    elif op == "set_sum_distinct":
        sig = f"long long {name}(const std::vector<{t}> &{v})"
        orig = (f"    std::set<{t}> seen;\n    for (const {t} x : {v})\n        seen.insert(x);\n"
                f"    long long s = 0;\n    for (const {t} x : seen)\n        s += x;\n    return s;\n")
        ref = (f"    std::vector<{t}> u({v});\n    std::sort(u.begin(), u.end());\n"
               f"    u.erase(std::unique(u.begin(), u.end()), u.end());\n"
               f"    long long s = 0;\n    for (const {t} x : u)\n        s += x;\n    return s;\n")
        inc_o, inc_r = ("set", "vector"), ("algorithm", "vector")
        what = "Sum of the distinct values, collected in a std::set"
    elif op == "map_max_count":
        sig = f"long {name}(const std::vector<{t}> &{v})"
        orig = (f"    std::map<{t}, long> m;\n    for (const {t} x : {v})\n        m[x] += 1;\n    long best = 0;\n"
                f"    for (const auto &e : m)\n        if (e.second > best)\n            best = e.second;\n"
                f"    return best;\n")
        ref = (f"    std::unordered_map<{t}, long> m;\n    m.reserve({v}.size());\n    for (const {t} x : {v})\n"
               f"        m[x] += 1;\n    long best = 0;\n    for (const auto &e : m)\n"
               f"        if (e.second > best)\n            best = e.second;\n    return best;\n")
        inc_o, inc_r = ("map", "vector"), ("unordered_map", "vector")
        what = "How often the most frequent value occurs, counted in a std::map"
    else:
        k = rng.choice([2, 3, 5])
        sig = f"long long {name}(const std::vector<{t}> &{v})"
        orig = (f"    std::list<long long> staged;\n    for (const {t} x : {v})\n"
                f"        staged.push_back(static_cast<long long>(x) * {k});\n"
                f"    long long s = 0;\n    for (const long long y : staged)\n        s += y;\n    return s;\n")
        ref = (f"    long long s = 0;\n    for (const {t} x : {v})\n        s += static_cast<long long>(x) * {k};\n"
               f"    return s;\n")
        inc_o, inc_r = ("list", "vector"), ("vector",)
        what = f"Sum of {k} * v[i], staged through a std::list"

    def head(names: tuple[str, ...]) -> str:
        return "#include <cstddef>\n" + "".join(f"#include <{h}>\n" for h in names) + "\n"

    return Variant(name, "cpp", f"{head(inc_o)}// {what}.\n{sig} {{\n{orig}}}\n", f"{head(inc_r)}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op})


def cpp_vector_front_ops(rng: random.Random) -> Variant:
    """std::vector used as a queue or grown at the front: erase(begin()) and insert(begin()) in a loop."""
    t = rng.choice(["int", "long", "double", "float", "short"])
    op = rng.choice(["drain_front", "insert_front", "erase_matching"])
    v = rng.choice(["v", "queue", "items", "buf"])
    if op == "drain_front":
        k = rng.choice(["2", "3", "0.5"]) if t in ("double", "float") else rng.choice(["2", "3"])
        acc = "double" if t in ("double", "float") else "long long"
        name = pick_name(rng, ["drain_weighted", "consume_all", "pop_and_sum"], t)
        sig = f"{acc} {name}(std::vector<{t}> &{v})"
        orig = (f"    {acc} s = 0;\n    {acc} w = 1;\n    while (!{v}.empty()) {{\n        s += w * {v}.front();\n"
                f"        w = w * {k} - 1;\n        if (w > 1000 || w < -1000)\n            w = 1;\n"
                f"        {v}.erase({v}.begin());\n    }}\n    return s;\n")
        ref = (f"    {acc} s = 0;\n    {acc} w = 1;\n    for (const {t} x : {v}) {{\n        s += w * x;\n"
               f"        w = w * {k} - 1;\n        if (w > 1000 || w < -1000)\n            w = 1;\n    }}\n"
               f"    {v}.clear();\n    return s;\n")
        what = "Consume the vector from the front with erase(begin()), summing with changing weights"
    elif op == "insert_front":
        name = pick_name(rng, ["reverse_into", "stack_reverse", "prepend_all"], t)
        sig = f"void {name}(const std::vector<{t}> &src, std::vector<{t}> &{v})"
        orig = f"    {v}.clear();\n    for (const {t} x : src)\n        {v}.insert({v}.begin(), x);\n"
        ref = f"    {v}.assign(src.rbegin(), src.rend());\n"
        what = "The input reversed, built by inserting at the front"
    else:
        name = pick_name(rng, ["remove_negatives", "drop_below", "prune_small"], t)
        lim = "0" if t not in ("double", "float") else rng.choice(["0.0", "-0.5", "0.25"])
        sig = f"void {name}(std::vector<{t}> &{v})"
        orig = (f"    for (std::size_t i = 0; i < {v}.size();) {{\n        if ({v}[i] < {lim})\n"
                f"            {v}.erase({v}.begin() + static_cast<long>(i));\n        else\n            i++;\n    }}\n")
        ref = (f"    std::size_t w = 0;\n    for (std::size_t i = 0; i < {v}.size(); i++)\n"
               f"        if (!({v}[i] < {lim}))\n            {v}[w++] = {v}[i];\n    {v}.resize(w);\n")
        what = f"Remove the elements below {lim}, erasing them one at a time"
    head = "#include <cstddef>\n#include <vector>\n\n"
    return Variant(name, "cpp", f"{head}// {what}: O(n^2).\n{sig} {{\n{orig}}}\n", f"{head}{sig} {{\n{ref}}}\n",
                   {"type": t, "op": op})
