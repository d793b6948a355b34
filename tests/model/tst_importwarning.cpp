// SPDX-License-Identifier: MIT
// The table of import-warning kinds (model/importwarning.h): its keys are unique and well formed, lookups agree
// with it, and docs/limits.md lists exactly its kinds, with the same seriousness and meaning.
#include "model/importwarning.h"

#include <QTest>

#include <fstream>
#include <map>
#include <set>
#include <string>

using namespace timesink::model;

namespace {

struct DocRow
{
    bool serious = false;
    std::string meaning;
};

// Rows of the table under "## Import warnings" in docs/limits.md: "| `key` | yes|no | meaning |".
std::map<std::string, DocRow> documentedKinds(std::string* error)
{
    std::ifstream in(std::string(TIMESINK_SOURCE_DIR) + "/docs/limits.md");
    if (!in) {
        *error = "docs/limits.md cannot be read";
        return {};
    }
    std::map<std::string, DocRow> rows;
    bool inSection = false;
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("## ")) {
            inSection = line == "## Import warnings";
            continue;
        }
        if (!inSection || !line.starts_with("| `"))
            continue;
        const std::size_t keyEnd = line.find("` | ", 3);
        const std::size_t seriousEnd = keyEnd == std::string::npos ? keyEnd : line.find(" | ", keyEnd + 4);
        if (seriousEnd == std::string::npos || !line.ends_with(" |")) {
            *error = "unreadable row: " + line;
            return {};
        }
        const std::string key = line.substr(3, keyEnd - 3);
        const std::string serious = line.substr(keyEnd + 4, seriousEnd - keyEnd - 4);
        if (serious != "yes" && serious != "no") {
            *error = "seriousness must be yes or no: " + line;
            return {};
        }
        const std::string meaning = line.substr(seriousEnd + 3, line.size() - seriousEnd - 5);
        if (!rows.emplace(key, DocRow {serious == "yes", meaning}).second) {
            *error = "listed twice: " + key;
            return {};
        }
    }
    return rows;
}

} // namespace

class TestImportWarning : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keysAreUniqueAndWellFormed()
    {
        std::set<std::string_view> keys;
        for (const ImportWarningKindInfo& info : kImportWarningKinds) {
            QVERIFY2(keys.insert(info.key).second, std::string(info.key).c_str());
            QVERIFY(!info.key.empty());
            for (char c : info.key)
                QVERIFY2((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_', std::string(info.key).c_str());
            QVERIFY2(!info.meaning.empty(), std::string(info.key).c_str());
            QVERIFY2(info.meaning.find('|') == std::string_view::npos, std::string(info.key).c_str());
        }
        QCOMPARE(keys.size(), kImportWarningKinds.size());
    }

    void lookupsFollowTheTable()
    {
        for (const ImportWarningKindInfo& info : kImportWarningKinds) {
            QCOMPARE(key(info.kind), info.key);
            QVERIFY(importWarningKindFromKey(info.key) == info.kind);
            QCOMPARE(isSeriousImportWarning(info.key), info.serious);
        }
        QVERIFY(!importWarningKindFromKey("no_such_warning"));
        QVERIFY(!isSeriousImportWarning("no_such_warning"));
        QVERIFY(!isSeriousImportWarning(""));
        // The serious set the viewer's banner and the job report have always shown.
        std::set<std::string_view> serious;
        for (const ImportWarningKindInfo& info : kImportWarningKinds) {
            if (info.serious)
                serious.insert(info.key);
        }
        const std::set<std::string_view> expected {"truncated",          "time_out_of_range", "disjoint_clocks",
                                                   "decompressed_limit", "corrupt_stream",    "read_error",
                                                   "not_regular_file"};
        QVERIFY(serious == expected);
    }

    void docsListExactlyTheTable()
    {
        std::string error;
        const std::map<std::string, DocRow> documented = documentedKinds(&error);
        QVERIFY2(error.empty(), error.c_str());
        for (const ImportWarningKindInfo& info : kImportWarningKinds) {
            const auto it = documented.find(std::string(info.key));
            QVERIFY2(it != documented.end(), ("docs/limits.md does not list " + std::string(info.key)).c_str());
            QVERIFY2(it->second.serious == info.serious, ("seriousness differs for " + it->first).c_str());
            QVERIFY2(it->second.meaning == info.meaning,
                     ("meaning differs for " + it->first + ": docs say '" + it->second.meaning + "'").c_str());
        }
        for (const auto& [k, row] : documented)
            QVERIFY2(importWarningKindFromKey(k), ("docs/limits.md lists unknown kind " + k).c_str());
        QCOMPARE(documented.size(), kImportWarningKinds.size());
    }
};

QTEST_APPLESS_MAIN(TestImportWarning)
#include "tst_importwarning.moc"
