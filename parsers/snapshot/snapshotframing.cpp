// SPDX-License-Identifier: MIT
#include "parsers/snapshot/snapshotframing.h"

#include <cstring>

namespace timesink::parsers::snapshot {

namespace {

std::uint64_t rotl(std::uint64_t v, int s)
{
    return (v << s) | (v >> (64 - s));
}

void putU32(char* p, std::uint32_t v)
{
    std::memcpy(p, &v, 4);
}
void putU64(char* p, std::uint64_t v)
{
    std::memcpy(p, &v, 8);
}
std::uint32_t getU32(const char* p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint64_t getU64(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

model::Status failed(std::string message)
{
    return {model::StatusKind::Malformed, std::move(message)};
}

} // namespace

std::uint64_t hashBytes(const void* data, std::size_t size, std::uint64_t seed)
{
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = seed ^ (size * 0x9e3779b97f4a7c15ULL);
    for (; size >= 8; size -= 8, p += 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = rotl(h ^ (w * 0x9e3779b97f4a7c15ULL), 31) * 0xbf58476d1ce4e5b9ULL;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p, size);
    h = rotl(h ^ (tail * 0x9e3779b97f4a7c15ULL), 31) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

std::uint64_t hash64(std::string_view bytes, std::uint64_t seed)
{
    return hashBytes(bytes.data(), bytes.size(), seed);
}

bool looksLikeSnapshot(std::string_view head)
{
    return head.substr(0, kMagic.size()) == kMagic;
}

void encodePreamble(char (&out)[kPreambleBytes], std::uint64_t headerOffset, std::string_view header)
{
    std::memcpy(out, kMagic.data(), kMagic.size());
    putU32(out + 8, kFormatVersion);
    putU32(out + 12, 0);
    putU64(out + 16, headerOffset);
    putU64(out + 24, header.size());
    putU64(out + 32, hashBytes(header.data(), header.size(), 0));
}

model::Expected<std::uint64_t> readHeader(const ByteSource& source, pb::Header& header)
{
    char pre[kPreambleBytes];
    if (source.size() < kPreambleBytes || !source.readAt(0, pre, kPreambleBytes)
        || std::string_view(pre, kMagic.size()) != kMagic) {
        return model::Status(model::StatusKind::NotRecognised, "not a Timesink snapshot (no .tsnap signature)");
    }
    const std::uint32_t version = getU32(pre + 8);
    if (version != kFormatVersion) {
        return failed(std::string("snapshot format ") + std::to_string(version) + " was written by "
                      + (version < kFormatVersion ? "an older" : "a newer") + " Timesink; this one reads format "
                      + std::to_string(kFormatVersion) + ". Open the source trace instead (and export a new "
                      + "snapshot from it)");
    }
    const std::uint64_t headerOffset = getU64(pre + 16);
    const std::uint64_t headerSize = getU64(pre + 24);
    const std::uint64_t headerHash = getU64(pre + 32);
    if (headerOffset < kPreambleBytes || headerSize > source.size() || headerOffset > source.size() - headerSize)
        return failed("the snapshot is truncated (its header lies past the end of the file)");
    // Parsing a header costs many times its size (an empty track is two bytes of protobuf); real ones are a few MB.
    if (headerSize > kMaxHeaderBytes)
        return failed("the snapshot is corrupt (a header of " + std::to_string(headerSize) + " bytes)");
    std::string bytes(headerSize, '\0');
    if (!source.readAt(headerOffset, bytes.data(), bytes.size()))
        return failed("cannot read the snapshot header");
    // (fuzz/fuzz_snapshot.cpp writes a mutated header's checksum into its input so that it reaches the checks below.)
    if (hashBytes(bytes.data(), bytes.size(), 0) != headerHash)
        return failed("the snapshot is corrupt (header checksum mismatch)");
    if (!header.ParseFromString(bytes))
        return failed("the snapshot is corrupt (unreadable header)");
    if (header.format_version() != kFormatVersion)
        return failed("the snapshot is corrupt (header and preamble disagree on the format version)");
    return headerOffset;
}

} // namespace timesink::parsers::snapshot
