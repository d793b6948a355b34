// SPDX-License-Identifier: MIT
#pragma once

// Inputs a careless user or an attacker hands to Timesink, made on the fly in a temporary folder: gzip/zstd
// streams, FIFOs, bundles with one file replaced, and a timesink-cli runner with a short timeout (a hang is a
// failure here, not a wait) and an optional stdout file (/dev/full).

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

namespace timesink::testing {

struct HardRun
{
    int exitCode = -1; // -1: crashed, or still running after the timeout (killed)
    bool timedOut = false;
    QByteArray out;
    QByteArray err;
    [[nodiscard]] QByteArray all() const { return out + err; }
};

/// Runs `program` (timesink-cli unless given) with `args`; stdout to `stdoutFile` when not empty.
inline HardRun runTool(const QString& program, const QStringList& args, int timeoutMs = 30000,
                       const QString& stdoutFile = {})
{
    QProcess p;
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile);
    p.start(program, args);
    HardRun r;
    if (!p.waitForFinished(timeoutMs)) {
        r.timedOut = true;
        p.kill();
        p.waitForFinished();
        r.err = p.readAllStandardError();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

inline QByteArray readBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// gzip (one member) of `data`, compressed `repeat` times in a row (a bomb: a tiny file inflating to a lot).
inline QByteArray gzipBytes(const QByteArray& data, std::size_t repeat = 1, const QByteArray& prefix = {},
                            const QByteArray& suffix = {})
{
    z_stream z {};
    deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
    QByteArray out;
    char buf[1 << 16];
    auto feed = [&](const QByteArray& in, int flush) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.constData()));
        z.avail_in = static_cast<uInt>(in.size());
        do {
            z.next_out = reinterpret_cast<Bytef*>(buf);
            z.avail_out = sizeof buf;
            deflate(&z, flush);
            out.append(buf, static_cast<qsizetype>(sizeof buf - z.avail_out));
        } while (z.avail_out == 0);
    };
    feed(prefix, Z_NO_FLUSH);
    for (std::size_t i = 0; i < repeat; ++i)
        feed(data, Z_NO_FLUSH);
    feed(suffix, Z_FINISH);
    deflateEnd(&z);
    return out;
}

inline QByteArray zstdBytes(const QByteArray& data)
{
    QByteArray out(static_cast<qsizetype>(ZSTD_compressBound(static_cast<std::size_t>(data.size()))), '\0');
    const std::size_t n = ZSTD_compress(out.data(), static_cast<std::size_t>(out.size()), data.constData(),
                                        static_cast<std::size_t>(data.size()), 3);
    out.resize(ZSTD_isError(n) ? 0 : static_cast<qsizetype>(n));
    return out;
}

inline QByteArray gunzipFile(const QString& path)
{
    gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
    QByteArray out;
    if (!f)
        return out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, n);
    gzclose(f);
    return out;
}

inline bool makeFifo(const QString& path)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile::remove(path);
    return ::mkfifo(path.toLocal8Bit().constData(), 0644) == 0;
}

inline bool isFifo(const QString& path)
{
    struct stat st
    {
    };
    return ::lstat(path.toLocal8Bit().constData(), &st) == 0 && S_ISFIFO(st.st_mode);
}

/// Copies the folder `from` to `to` (recursively, regular files only).
inline bool copyTree(const QString& from, const QString& to)
{
    std::error_code ec;
    std::filesystem::copy(from.toStdString(), to.toStdString(), std::filesystem::copy_options::recursive, ec);
    return !ec;
}

} // namespace timesink::testing
