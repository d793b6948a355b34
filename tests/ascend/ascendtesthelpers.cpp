// SPDX-License-Identifier: MIT
#include "ascendtesthelpers.h"

#include "parsers/ascend/ascendimporter.h"
#include "parsers/registry/traceloader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <sstream>
#include <vector>

using namespace timesink;
using namespace timesink::model;

namespace ascendtest {

std::filesystem::path writeFile(const QTemporaryDir& dir, const std::string& relative, const QByteArray& content)
{
    const QString path = dir.filePath(QString::fromStdString(relative));
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
    return std::filesystem::path(path.toStdString());
}

parsers::ImportResult importAscend(const std::filesystem::path& path)
{
    const model::Expected<parsers::SourceProbe> probe = parsers::probeSource(path);
    if (!probe.ok())
        return probe.status();
    parsers::AscendImporter importer;
    if (importer.probe(probe.value()) == 0)
        return model::Status(model::StatusKind::NotRecognised, "probe said no");
    parsers::ProgressSink progress;
    return importer.import(probe.value(), parsers::ImportOptions {}, progress);
}

parsers::ImportResult loadAny(const std::filesystem::path& path)
{
    parsers::ProgressSink progress;
    return parsers::loadTrace(path, parsers::ImportOptions {}, progress);
}

namespace {
std::string argText(const Trace& t, const ArgValue& v)
{
    switch (v.type) {
    case ArgValue::Type::Int:
        return std::to_string(v.i);
    case ArgValue::Type::Double: {
        std::ostringstream s;
        s << v.d;
        return s.str();
    }
    case ArgValue::Type::Bool:
        return v.i ? "true" : "false";
    case ArgValue::Type::String:
        return std::string(t.str(StringId(v.s)));
    }
    return {};
}
} // namespace

std::string dumpTrace(const Trace& t)
{
    // Args worth pinning in a dump: the joins and classification inputs, not every profiler detail.
    static const char* kArgs[] = {"Task Type", "OP Type", "Accelerator Core", "Input Shapes", "launched by", "level"};
    std::ostringstream out;
    std::vector<TrackId> order;
    for (const Track& tr : t.tracks())
        order.push_back(tr.id);
    std::sort(order.begin(), order.end(), [&](TrackId a, TrackId b) {
        const Track& x = t.track(a);
        const Track& y = t.track(b);
        return std::make_tuple(std::string(t.str(x.processName)), std::string(t.str(x.name)))
            < std::make_tuple(std::string(t.str(y.processName)), std::string(t.str(y.name)));
    });
    auto sliceLabel = [&](SliceRef r) {
        const Track& tr = t.track(r.track);
        return std::string(t.str(tr.name)) + ":" + std::string(t.str(tr.sliceName(r.index.value)));
    };
    for (TrackId id : order) {
        const Track& tr = t.track(id);
        out << "track " << t.str(tr.processName) << " / " << t.str(tr.name) << " role=" << trackRoleKey(tr.role)
            << " kind=" << deviceKindKey(tr.deviceKind) << " device=" << tr.deviceIndex;
        if (!tr.counterTimes().empty())
            out << " samples=" << tr.counterTimes().size();
        out << "\n";
        for (std::uint32_t i = 0; i < tr.size(); ++i) {
            out << "  " << (tr.ts(i) - t.startNs()) << " +" << tr.dur(i) << " d" << tr.depth(i) << " "
                << categoryKey(tr.category(i)) << " " << t.str(tr.sliceName(i));
            if (tr.direction(i) != MemcpyDirection::None)
                out << " dir=" << directionKey(tr.direction(i));
            if (tr.flags(i) & SliceFlags::kSynchronous)
                out << " sync";
            for (const Arg& a : t.args(tr.args(i))) {
                const std::string_view key = t.str(a.key);
                if (std::find(std::begin(kArgs), std::end(kArgs), key) != std::end(kArgs))
                    out << " [" << key << "=" << argText(t, a.value) << "]";
            }
            out << "\n";
        }
    }
    std::vector<std::string> flows;
    for (const Flow& f : t.flows())
        flows.push_back("flow " + sliceLabel(f.from) + " -> " + sliceLabel(f.to) + " "
                        + std::string(flowKindKey(f.kind)));
    std::sort(flows.begin(), flows.end());
    for (const auto& f : flows)
        out << f << "\n";
    for (const Step& s : t.steps())
        out << "step " << s.number << " " << t.str(s.name) << " " << (s.start - t.startNs()) << " +" << s.duration()
            << (s.synthetic ? " synthetic" : "") << (s.marker.isValid() ? " marker" : "") << "\n";
    for (const ImportWarning& w : t.warnings())
        out << "warning " << w.kind << " x" << w.count << "\n";
    return out.str();
}

std::size_t deviceTaskCount(const Trace& t)
{
    std::size_t n = 0;
    for (const Track& tr : t.tracks())
        n += tr.role == TrackRole::DeviceCompute ? tr.size() : 0;
    return n;
}

std::size_t counterSampleCount(const Trace& t)
{
    std::size_t n = 0;
    for (const Track& tr : t.tracks())
        n += tr.counterTimes().size();
    return n;
}

std::size_t memcpyCount(const Trace& t, MemcpyDirection direction)
{
    std::size_t n = 0;
    for (const Track& tr : t.tracks()) {
        for (std::uint32_t i = 0; i < tr.size(); ++i)
            n += tr.category(i) == SliceCategory::Memcpy && tr.direction(i) == direction ? 1 : 0;
    }
    return n;
}

std::string metaProperty(const Trace& t, const std::string& key)
{
    for (const auto& [k, v] : t.metadata().properties) {
        if (k == key)
            return v;
    }
    return {};
}

std::uint64_t warningCount(const Trace& t, const std::string& kind)
{
    for (const ImportWarning& w : t.warnings()) {
        if (w.kind == kind)
            return w.count;
    }
    return 0;
}

bool warningMentions(const Trace& t, const std::string& text)
{
    for (const ImportWarning& w : t.warnings()) {
        if (w.message.find(text) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace ascendtest
