// SPDX-License-Identifier: MIT
#include "parsers/common/sqlitedb.h"

#include "model/checkedmath.h"
#include "parsers/common/decimaltime.h"
#include "parsers/common/regularfile.h"

#include <cmath>
#include <sqlite3.h>
#include <unistd.h>

namespace timesink::parsers {

SqliteDb::~SqliteDb()
{
    if (m_db)
        sqlite3_close_v2(m_db);
}

std::string SqliteDb::immutableUri(const std::filesystem::path& path)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string uri = "file:";
    for (char c : path.string()) {
        if (c == '%' || c == '?' || c == '#') {
            uri += '%';
            uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
            uri += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
            uri += c;
        }
    }
    uri += "?immutable=1";
    return uri;
}

std::unique_ptr<SqliteDb> SqliteDb::open(const std::filesystem::path& path, std::string& error)
{
    // Opening checks the type without blocking (a FIFO named *.db would hang sqlite's open) and the permission.
    if (const int fd = openRegularFile(path, error); fd < 0)
        return nullptr;
    else
        ::close(fd);
    std::unique_ptr<SqliteDb> db(new SqliteDb);
    const int rc
        = sqlite3_open_v2(immutableUri(path).c_str(), &db->m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
        error = "cannot open " + path.string()
            + " as SQLite: " + (db->m_db ? std::string(sqlite3_errmsg(db->m_db)) : std::string(sqlite3_errstr(rc)));
        return nullptr;
    }
    // Opening is lazy; reading the schema is what proves the file is a database.
    SqliteQuery q(*db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (q.step())
        db->m_tables.emplace_back(q.text(0));
    if (!q.error().empty()) {
        error = path.string() + " is not a readable SQLite database (" + q.error() + ")";
        return nullptr;
    }
    return db;
}

bool SqliteDb::hasTable(std::string_view table) const
{
    for (const auto& t : m_tables) {
        if (t == table)
            return true;
    }
    return false;
}

std::vector<std::string> SqliteDb::columns(std::string_view table) const
{
    std::vector<std::string> out;
    if (!hasTable(table))
        return out;
    // Table names come from sqlite_master, so quoting them with "" is safe.
    SqliteQuery q(*this, "PRAGMA table_info(\"" + std::string(table) + "\")");
    while (q.step())
        out.emplace_back(q.text(1));
    return out;
}

bool SqliteDb::hasColumn(std::string_view table, std::string_view column) const
{
    for (const auto& c : columns(table)) {
        if (c == column)
            return true;
    }
    return false;
}

std::string SqliteDb::pickColumn(std::string_view table, std::initializer_list<std::string_view> candidates) const
{
    const auto cols = columns(table);
    for (std::string_view cand : candidates) {
        for (const auto& c : cols) {
            if (c == cand)
                return c;
        }
    }
    return {};
}

std::string SqliteDb::lastError() const
{
    return m_db ? sqlite3_errmsg(m_db) : "no database";
}

SqliteQuery::SqliteQuery(const SqliteDb& db, const std::string& sql)
    : m_db(db)
{
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &m_stmt, nullptr) != SQLITE_OK) {
        m_error = db.lastError();
        sqlite3_finalize(m_stmt);
        m_stmt = nullptr;
    }
}

SqliteQuery::~SqliteQuery()
{
    sqlite3_finalize(m_stmt);
}

bool SqliteQuery::step()
{
    if (!m_stmt)
        return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        m_error = m_db.lastError();
    return false;
}

bool SqliteQuery::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::optional<std::int64_t> SqliteQuery::int64(int column) const
{
    switch (sqlite3_column_type(m_stmt, column)) {
    case SQLITE_INTEGER:
        return sqlite3_column_int64(m_stmt, column);
    case SQLITE_FLOAT: {
        return model::doubleToInt64(sqlite3_column_double(m_stmt, column));
    }
    case SQLITE_TEXT:
        return parseNanos(text(column));
    default:
        return std::nullopt;
    }
}

std::optional<double> SqliteQuery::real(int column) const
{
    const int type = sqlite3_column_type(m_stmt, column);
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
        return sqlite3_column_double(m_stmt, column);
    if (type == SQLITE_TEXT) {
        if (auto v = parseScaledDecimal(text(column), 6))
            return static_cast<double>(*v) / 1e6;
    }
    return std::nullopt;
}

std::string_view SqliteQuery::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    if (!p)
        return {};
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))};
}

} // namespace timesink::parsers
