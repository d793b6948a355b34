// SPDX-License-Identifier: MIT
#pragma once

// Where the snapshot reader gets its bytes: a file read at offsets from several threads at once, or a buffer in
// memory (the fuzz target's).

#include "model/expected.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace timesink::parsers::snapshot {

class ByteSource
{
public:
    ByteSource() = default;
    virtual ~ByteSource() = default;
    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;
    [[nodiscard]] virtual std::uint64_t size() const = 0;
    /// Reads exactly `size` bytes at `offset`; false on a short read or an error. Safe to call from several
    /// threads at once.
    virtual bool readAt(std::uint64_t offset, void* dst, std::size_t size) const = 0;
};

class MemorySource final : public ByteSource
{
public:
    explicit MemorySource(std::string_view bytes)
        : m_bytes(bytes)
    {
    }
    [[nodiscard]] std::uint64_t size() const override { return m_bytes.size(); }
    bool readAt(std::uint64_t offset, void* dst, std::size_t size) const override;

private:
    std::string_view m_bytes;
};

/// Opens `file` for reading at offsets (never blocking on a FIFO); CannotRead, naming the file, when it cannot.
model::Expected<std::unique_ptr<ByteSource>> openFileSource(const std::filesystem::path& file);

} // namespace timesink::parsers::snapshot
