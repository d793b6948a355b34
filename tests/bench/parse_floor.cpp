// SPDX-License-Identifier: MIT
// The parse floor of the import benchmarks: what it costs only to read and parse a generated trace with simdjson,
// streaming, on one thread, building nothing. `timesink-cli info` on the same file is reported as a ratio to it.
//
//   parse_floor FILE
//
// Reads FILE in 16 MiB chunks (as the importer does) and parses every event completely with simdjson's DOM
// document stream (every number converted, every string unescaped). The generated traces (gen_kineto,
// gen_trace_view) write one event per line, so a chunk becomes a batch of documents by blanking the comma after
// each event and the envelope lines: a boundary scan that costs a memchr per line, the cheapest one possible (the
// importer's scanner accepts any layout). Prints the events, bytes and seconds.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <simdjson.h>
#include <vector>

namespace {

std::uint64_t countValues(simdjson::dom::element e)
{
    switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
        std::uint64_t n = 1;
        const simdjson::dom::object object = e.get_object().value_unsafe();
        for (auto field : object)
            n += countValues(field.value);
        return n;
    }
    case simdjson::dom::element_type::ARRAY: {
        std::uint64_t n = 1;
        const simdjson::dom::array array = e.get_array().value_unsafe();
        for (auto v : array)
            n += countValues(v);
        return n;
    }
    default:
        return 1;
    }
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 1;
    }
    std::FILE* f = std::fopen(argv[1], "rb");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    const auto t0 = std::chrono::steady_clock::now();
    constexpr std::size_t kChunk = 16 << 20;
    std::vector<char> buf(2 * kChunk + simdjson::SIMDJSON_PADDING);
    std::size_t carried = 0;
    std::uint64_t bytes = 0;
    std::uint64_t events = 0;
    std::uint64_t values = 0;
    simdjson::dom::parser parser;
    for (;;) {
        const std::size_t got = std::fread(buf.data() + carried, 1, kChunk, f);
        bytes += got;
        const std::size_t have = carried + got;
        // Whole lines only; the rest waits for the next chunk (or is the last line of the file).
        std::size_t usable = have;
        if (got > 0) {
            const void* last = nullptr;
            for (std::size_t i = have; i-- > 0;) {
                if (buf[i] == '\n') {
                    last = buf.data() + i;
                    break;
                }
            }
            usable = last ? static_cast<std::size_t>(static_cast<const char*>(last) - buf.data()) + 1 : 0;
        }
        for (std::size_t pos = 0; pos < usable;) {
            const char* nl = static_cast<const char*>(std::memchr(buf.data() + pos, '\n', usable - pos));
            const std::size_t end = nl ? static_cast<std::size_t>(nl - buf.data()) : usable;
            std::size_t first = pos;
            while (first < end && (buf[first] == ' ' || buf[first] == '\t'))
                ++first;
            std::size_t back = end;
            while (back > first && (buf[back - 1] == ' ' || buf[back - 1] == '\r'))
                --back;
            if (back > first && buf[back - 1] == ',')
                --back;
            // An event: a whole object on its line ("{...}" or "{...},").
            if (back > first + 1 && buf[first] == '{' && buf[back - 1] == '}') {
                if (back < end)
                    buf[back] = ' ';
            } else {
                std::memset(buf.data() + pos, ' ', end - pos); // envelope: "{", "\"traceEvents\": [", "]" …
            }
            pos = end + 1;
        }
        if (usable > 0) {
            simdjson::dom::document_stream stream;
            if (const auto error
                = parser.parse_many(reinterpret_cast<const std::uint8_t*>(buf.data()), usable, 1 << 20).get(stream)) {
                std::fprintf(stderr, "parse_floor: %s\n", simdjson::error_message(error));
                return 1;
            }
            for (auto doc : stream) {
                simdjson::dom::element e;
                if (doc.get(e)) {
                    std::fprintf(stderr, "parse_floor: event %llu does not parse\n",
                                 static_cast<unsigned long long>(events));
                    return 1;
                }
                values += countValues(e);
                ++events;
            }
        }
        if (got == 0)
            break;
        carried = have - usable;
        std::memmove(buf.data(), buf.data() + usable, carried);
    }
    std::fclose(f);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("parse floor: %llu events, %llu values, %.1f MB in %.3f s (%.0f MB/s)\n",
                static_cast<unsigned long long>(events), static_cast<unsigned long long>(values),
                double(bytes) / (1 << 20), s, double(bytes) / (1 << 20) / s);
    return 0;
}
