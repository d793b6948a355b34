// SPDX-License-Identifier: MIT
#include "exporters/traceexport.h"
#include "output/outputfile.h"
#include "report/reportoutput.h"
#include "reportfixture.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <iterator>
#include <sys/stat.h>

using namespace timesink;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeAll(const fs::path& p, const std::string& text)
{
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::size_t entriesIn(const fs::path& dir)
{
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

} // namespace

class TestOutputFile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void commitReplacesTheFile()
    {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "report.md";
        writeAll(target, "old contents");
        ::chmod(target.c_str(), 0640);
        output::AtomicFile file(target);
        std::string error;
        QVERIFY2(file.open(error), error.c_str());
        QCOMPARE(file.temporaryPath().parent_path(), target.parent_path());
        file.stream() << "new contents";
        // Until the commit, readers still see the old file; the new one is a separate temporary file.
        QCOMPARE(readAll(target), std::string("old contents"));
        QCOMPARE(entriesIn(target.parent_path()), std::size_t(2));
        QVERIFY2(file.commit(error), error.c_str());
        QCOMPARE(readAll(target), std::string("new contents"));
        QCOMPARE(entriesIn(target.parent_path()), std::size_t(1));
        struct stat st
        {
        };
        QCOMPARE(::stat(target.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0640); // a rewritten file keeps its mode
    }

    void newFileIsReadableByOthers()
    {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "new.html";
        output::AtomicFile file(target);
        std::string error;
        QVERIFY(file.open(error));
        file.stream() << "<!DOCTYPE html>";
        QVERIFY(file.commit(error));
        struct stat st
        {
        };
        QCOMPARE(::stat(target.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0644);
    }

    void abandonedWriteLeavesNothing()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path target = root / "report.csv";
        writeAll(target, "keep me");
        {
            output::AtomicFile file(target);
            std::string error;
            QVERIFY(file.open(error));
            file.stream() << "half a rep";
            // destroyed without commit, e.g. an exception or a cancelled export
        }
        QCOMPARE(readAll(target), std::string("keep me"));
        QCOMPARE(entriesIn(root), std::size_t(1));

        output::AtomicFile discarded(root / "other.csv");
        std::string error;
        QVERIFY(discarded.open(error));
        discarded.discard();
        QVERIFY(!fs::exists(root / "other.csv"));
        QCOMPARE(entriesIn(root), std::size_t(1));
    }

    void missingFolderIsAClearError()
    {
        QTemporaryDir dir;
        const fs::path target = fs::path(dir.path().toStdString()) / "no" / "such" / "dir" / "r.md";
        output::AtomicFile file(target);
        std::string error;
        QVERIFY(!file.open(error));
        QVERIFY2(error.find("cannot create a file in") != std::string::npos, error.c_str());
        QVERIFY2(error.find("no/such/dir") != std::string::npos, error.c_str());
        QVERIFY(error.find("No such file or directory") != std::string::npos);
    }

    void folderAsTargetIsRefused()
    {
        QTemporaryDir dir;
        output::AtomicFile file(dir.path().toStdString());
        std::string error;
        QVERIFY(!file.open(error));
        QVERIFY2(error.find("is a folder") != std::string::npos, error.c_str());
    }

    void refusesToOverwriteAnInput()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const fs::path input = root / "trace.json";
        writeAll(input, "{\"traceEvents\": []}");
        fs::create_directory(root / "sub");
        fs::create_symlink(input, root / "link.json");
        const fs::path inputs[] = {root / "other.json", input};
        std::string error;
        // The same file, spelled three ways.
        for (const fs::path& out : {input, root / "sub" / ".." / "trace.json", root / "link.json"}) {
            error.clear();
            QVERIFY2(!output::checkOutputPath(out, inputs, error), out.c_str());
            QVERIFY2(error.find("refusing to overwrite the input") != std::string::npos, error.c_str());
        }
        // A hard link is the same file too.
        fs::create_hard_link(input, root / "hard.json");
        QVERIFY(!output::checkOutputPath(root / "hard.json", inputs, error));
        QVERIFY(output::checkOutputPath(root / "report.md", inputs, error));
        QVERIFY(!output::checkOutputPath(root, inputs, error)); // a folder

        // The file-writing entry points go through the same check and leave the input untouched.
        const auto a = testing::makeAnalysedTrace();
        const report::ReportModel model = report::buildReportModel(*a.trace, a.result);
        QVERIFY(!report::writeReportFile(model, report::ReportFormat::Markdown, root / "link.json", inputs, error));
        QVERIFY(!exporters::exportTrace(*a.trace, {}, exporters::TraceFormat::ChromeJson, input, inputs, error));
        QCOMPARE(readAll(input), std::string("{\"traceEvents\": []}"));
        QVERIFY2(report::writeReportFile(model, report::ReportFormat::Markdown, root / "report.md", inputs, error),
                 error.c_str());
        QVERIFY(readAll(root / "report.md").rfind("# Timesink bottleneck report", 0) == 0);
    }

    void exportReportPicksTheFormatFromTheExtension()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const auto a = testing::makeAnalysedTrace();
        const fs::path inputs[] = {root / "trace.json"};
        writeAll(inputs[0], "{}");
        std::string error;
        QVERIFY2(report::exportReport(*a.trace, a.result, root / "r.html", inputs, error), error.c_str());
        QVERIFY(readAll(root / "r.html").rfind("<!DOCTYPE html>", 0) == 0);
        QVERIFY(report::exportReport(*a.trace, a.result, root / "r.csv", inputs, error));
        QVERIFY(readAll(root / "r.csv").rfind("rank,kind,", 0) == 0);
        QVERIFY(!report::exportReport(*a.trace, a.result, root / "r.pdf", inputs, error));
        QVERIFY2(error.find("cannot tell the report format from") != std::string::npos, error.c_str());
        QVERIFY(!fs::exists(root / "r.pdf"));
        QVERIFY(!report::exportReport(*a.trace, a.result, root / "trace.json", inputs, error));
        QCOMPARE(readAll(root / "trace.json"), std::string("{}"));
        // Every filter names an extension the format inference understands.
        for (const std::string& filter : report::reportFileFilters()) {
            const auto star = filter.find("*.");
            QVERIFY(report::reportFormatFromPath("x" + filter.substr(star + 1, filter.size() - star - 2)).has_value());
        }
        for (const std::string& filter : exporters::traceFileFilters()) {
            const auto star = filter.find("*.");
            QVERIFY(
                exporters::traceFormatFromPath("x" + filter.substr(star + 1, filter.size() - star - 2)).has_value());
        }
    }
};

QTEST_APPLESS_MAIN(TestOutputFile)
#include "tst_outputfile.moc"
