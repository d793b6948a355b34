// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace timesink::parsers {

/// A read-only SQLite connection that never touches the file: opened through the URI
/// `file:PATH?immutable=1` with SQLITE_OPEN_READONLY, so no lock is taken, no `-wal`/`-shm` file is created,
/// and a folder without write permission works. (Profiler exports are the user's data, often in WAL mode.)
class SqliteDb
{
public:
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    /// Opens and checks that the file is a readable SQLite database (reads its schema). On failure returns
    /// nullptr with `error` naming the file ("… is not an SQLite database (file is not a database)").
    static std::unique_ptr<SqliteDb> open(const std::filesystem::path& path, std::string& error);

    /// `file:` URI for a path, percent-escaping the characters that URIs reserve ('%', '?', '#').
    ///   "/data/a?b.db" → "file:/data/a%3fb.db?immutable=1"
    static std::string immutableUri(const std::filesystem::path& path);

    [[nodiscard]] bool hasTable(std::string_view table) const;
    /// Column names of a table in declaration order (PRAGMA table_info); empty when there is no such table.
    [[nodiscard]] std::vector<std::string> columns(std::string_view table) const;
    [[nodiscard]] bool hasColumn(std::string_view table, std::string_view column) const;
    /// The first of `candidates` that `table` has, or an empty string (for camelCase vs snake_case drift).
    [[nodiscard]] std::string pickColumn(std::string_view table,
                                         std::initializer_list<std::string_view> candidates) const;
    [[nodiscard]] const std::vector<std::string>& tables() const { return m_tables; }
    [[nodiscard]] sqlite3* handle() const { return m_db; }
    [[nodiscard]] std::string lastError() const;

private:
    SqliteDb() = default;
    sqlite3* m_db = nullptr;
    std::vector<std::string> m_tables;
};

/// A prepared statement; step() until it returns false, then check error().
class SqliteQuery
{
public:
    SqliteQuery(const SqliteDb& db, const std::string& sql);
    ~SqliteQuery();
    SqliteQuery(const SqliteQuery&) = delete;
    SqliteQuery& operator=(const SqliteQuery&) = delete;

    [[nodiscard]] bool prepared() const { return m_stmt != nullptr; }
    /// Next row; false at the end or on an error (corrupt page, I/O error …).
    bool step();
    [[nodiscard]] const std::string& error() const { return m_error; }

    [[nodiscard]] bool isNull(int column) const;
    /// Integer value; REAL is rounded, TEXT parsed as an integer/decimal (torch_npu stores some ns as TEXT).
    [[nodiscard]] std::optional<std::int64_t> int64(int column) const;
    [[nodiscard]] std::optional<double> real(int column) const;
    [[nodiscard]] std::string_view text(int column) const;

private:
    const SqliteDb& m_db;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_error;
};

} // namespace timesink::parsers
