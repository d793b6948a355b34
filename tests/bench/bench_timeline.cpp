// SPDX-License-Identifier: MIT
// Paint time of the timeline over a 5 M-slice trace, 1600 px wide, at full zoom-out, mid zoom and deep zoom.
// Figures are medians over repeated paints, also given as a ratio to a baseline measured in the same
// process (filling the same QImage once), so runs on different machines compare.
//
// Usage: bench_timeline [slices] [repeats]   (defaults 5000000, 25)

#include "model/tracebuilder.h"
#include "widgets/timelinepainter.h"
#include "widgets/timelinezoom.h"
#include "widgets/tracklayout.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

using namespace timesink;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 1600;
constexpr int kHeight = 900;

/// Device streams with back-to-back kernels and copies of varied length, host threads with nested ops:
/// the shape of a long Kineto trace. Deterministic (fixed seed).
model::TracePtr buildTrace(std::size_t slices)
{
    model::TraceBuilder b;
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<model::TimeNs> kernelDur(1'000, 40'000);
    std::uniform_int_distribution<model::TimeNs> gap(200, 5'000);
    std::uniform_int_distribution<int> kind(0, 9);
    const std::size_t deviceShare = slices * 4 / 5;
    const int streams = 4;
    for (int s = 0; s < streams; ++s) {
        const auto track = b.deviceStream(0, 7 + s);
        model::TimeNs t = 0;
        for (std::size_t i = 0; i < deviceShare / streams; ++i) {
            const model::TimeNs d = kernelDur(rng);
            const int k = kind(rng);
            if (k == 0)
                b.memcpy(track, model::MemcpyDirection::HostToDevice, model::HostMemoryKind::Pageable, t, d);
            else
                b.slice(track, k < 3 ? model::SliceCategory::Memset : model::SliceCategory::Kernel,
                        k < 5 ? "volta_sgemm_128x64_nn" : "elementwise_kernel", t, d);
            t += d + gap(rng);
        }
    }
    const std::size_t hostShare = slices - deviceShare;
    const int threads = 2;
    for (int h = 0; h < threads; ++h) {
        const auto track = b.hostThread("python", 1, 10 + h);
        model::TimeNs t = 0;
        for (std::size_t i = 0; i + 1 < hostShare / threads; i += 2) {
            const model::TimeNs d = kernelDur(rng) * 2;
            b.slice(track, model::SliceCategory::HostOp, "aten::linear", t, d);
            b.slice(track, model::SliceCategory::RuntimeApi, "cudaLaunchKernel", t + d / 4, d / 2);
            t += d + gap(rng);
        }
    }
    return b.finalize();
}

double medianMs(int repeats, const std::function<void()>& work)
{
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        work();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const std::size_t slices = argc > 1 ? std::stoull(argv[1]) : 5'000'000;
    const int repeats = argc > 2 ? std::stoi(argv[2]) : 25;

    const auto buildStart = Clock::now();
    const model::TracePtr trace = buildTrace(slices);
    const double buildMs = std::chrono::duration<double, std::milli>(Clock::now() - buildStart).count();
    std::printf("trace: %zu slices on %zu tracks, %.1f MB model, built in %.0f ms\n", trace->sliceCount(),
                trace->tracks().size(), static_cast<double>(trace->bytesUsed()) / 1e6, buildMs);

    QImage image(kWidth + widgets::TimelinePainter::kLabelWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
    const QPalette palette = QApplication::palette();
    const widgets::TrackLayout layout(*trace);
    widgets::TimelineZoom zoom;
    zoom.setWidth(kWidth);
    zoom.setTraceRange(trace->startNs(), trace->endNs());
    const widgets::TimelinePainter painter;
    widgets::TimelineDecorations decorations;

    const double baseline = medianMs(repeats, [&] { image.fill(palette.color(QPalette::Base)); });
    std::printf("baseline: QImage::fill of %dx%d: %.3f ms\n\n", image.width(), image.height(), baseline);
    std::printf("%-26s %12s %10s %10s %12s %12s\n", "view", "span", "median ms", "x baseline", "slices seen",
                "buckets seen");

    struct View
    {
        const char* name;
        double fraction; // of the trace span
    };
    const model::TimeNs span = trace->spanNs();
    for (const View v : {View {"full zoom-out", 1.0}, View {"mid zoom (1/100)", 0.01},
                         View {"mid zoom (1/1000)", 0.001}, View {"deep zoom (1/1e6)", 1e-6}}) {
        const auto viewSpan = static_cast<model::TimeNs>(static_cast<double>(span) * v.fraction);
        const model::TimeNs start = trace->startNs() + span / 3;
        zoom.setRange(v.fraction >= 1.0 ? trace->startNs() : start,
                      v.fraction >= 1.0 ? trace->endNs() : start + viewSpan);
        widgets::TimelinePainter::Stats stats;
        const double ms = medianMs(repeats, [&] {
            QPainter p(&image);
            stats = painter.paint(p, image.size(), *trace, zoom, layout, 0, decorations, palette);
        });
        std::printf("%-26s %10.3f ms %10.3f %10.1f %12zu %12zu\n", v.name, static_cast<double>(zoom.span()) / 1e6, ms,
                    ms / baseline, stats.slicesVisited, stats.bucketsVisited);
    }
    image.save(QStringLiteral("bench_timeline_last.png"));
    return 0;
}
