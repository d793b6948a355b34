// SPDX-License-Identifier: MIT
// The registry is the one list of formats (issue 38): each importer describes what it reads, and everything that
// names formats to people is built from those descriptions. These tests hold the descriptions to the truth: every
// format id a golden trace reports belongs to the importer that read it, and every fixture file is matched by a
// file pattern of its importer (the open dialogs' filter would otherwise hide it).
#include "parsers/registry/traceloader.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <set>
#include <string>

using namespace timesink;

namespace {

const std::filesystem::path kFixtures = TIMESINK_FIXTURES_DIR;
const std::filesystem::path kGoldens = kFixtures.parent_path() / "golden";

bool matchesAny(const std::vector<std::string>& patterns, const std::string& name)
{
    for (const std::string& p : patterns) {
        if (::fnmatch(p.c_str(), name.c_str(), 0) == 0)
            return true;
    }
    return false;
}

} // namespace

class TestFormatRegistry : public QObject
{
    Q_OBJECT

private slots:
    void everyImporterDescribesItself()
    {
        std::set<std::string> ids;
        for (const auto& importer : parsers::allImporters()) {
            const parsers::FormatDescription d = importer->describe();
            const QByteArray who(importer->id().data(), qsizetype(importer->id().size()));
            QVERIFY2(!d.name.empty(), who.constData());
            QVERIFY2(!d.filePatterns.empty() || !d.folderPatterns.empty(), who.constData());
            for (const std::string& p : d.filePatterns)
                QVERIFY2(p.rfind("*.", 0) == 0, (who + ": " + p.c_str()).constData());
            for (const std::string& id : d.formatIds)
                QVERIFY2(ids.insert(id).second, ("format id described twice: " + id).c_str());
        }
    }

    // Every format id in the pinned `info` outputs is described by exactly the importer that reads that fixture.
    void goldenFormatIdsAreDescribed()
    {
        std::ifstream list(kGoldens / "fixtures.txt");
        QVERIFY(list);
        std::string rel;
        int checked = 0;
        while (std::getline(list, rel)) {
            if (rel.empty() || rel[0] == '#')
                continue;
            QString goldenName = QString::fromStdString(rel);
            goldenName.replace(QLatin1Char('/'), QStringLiteral("__"));
            QFile golden(QString::fromStdString((kGoldens / "").string()) + goldenName + QStringLiteral(".info.json"));
            QVERIFY2(golden.open(QIODevice::ReadOnly), qPrintable(golden.fileName()));
            const std::string format = QJsonDocument::fromJson(golden.readAll())
                                           .object()
                                           .value(QStringLiteral("format"))
                                           .toString()
                                           .toStdString();
            const std::string importer = parsers::recogniseSource(kFixtures / rel);
            QVERIFY2(!importer.empty(), rel.c_str());
            bool described = false;
            for (const auto& candidate : parsers::allImporters()) {
                if (candidate->id() != importer)
                    continue;
                const parsers::FormatDescription d = candidate->describe();
                described = std::find(d.formatIds.begin(), d.formatIds.end(), format) != d.formatIds.end();
                // A fixture file must pass the open dialogs' filter of its own format.
                if (!std::filesystem::is_directory(kFixtures / rel)) {
                    const std::string name = (kFixtures / rel).filename().string();
                    QVERIFY2(matchesAny(d.filePatterns, name),
                             (rel + " matches no file pattern of " + importer).c_str());
                }
            }
            QVERIFY2(described, (rel + ": format \"" + format + "\" is not in " + importer + "'s description").c_str());
            ++checked;
        }
        QVERIFY(checked >= 20);
    }

    // The sentence people read names every format, and the "not a trace" error is built from it.
    void errorsAndListsComeFromTheDescriptions()
    {
        const std::string sentence = parsers::supportedFormatsSentence();
        for (const parsers::FormatDescription& d : parsers::supportedFormats())
            QVERIFY2(sentence.find(d.name) != std::string::npos, d.name.c_str());
        QTemporaryDir dir;
        const std::filesystem::path garbage = std::filesystem::path(dir.path().toStdString()) / "garbage.bin";
        std::ofstream(garbage) << "\x01\x02 not a trace at all";
        parsers::ProgressSink progress;
        const parsers::ImportResult r = parsers::loadTrace(garbage, {}, progress);
        QVERIFY(!r.ok());
        QVERIFY2(r.status().message().find(sentence) != std::string::npos, r.status().message().c_str());
        // Patterns are listed once each, in registry order.
        const std::vector<std::string> files = parsers::supportedFilePatterns();
        QVERIFY(std::set<std::string>(files.begin(), files.end()).size() == files.size());
        QVERIFY(matchesAny(files, "trace.json.zst"));
        QVERIFY(matchesAny(parsers::supportedFolderPatterns(), "PROF_000001_20240101"));
        QVERIFY(matchesAny(parsers::supportedFolderPatterns(), "worker0_1234_20240101_ascend_pt"));
    }
};

QTEST_GUILESS_MAIN(TestFormatRegistry)
#include "tst_formatregistry.moc"
