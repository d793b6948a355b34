// SPDX-License-Identifier: MIT
#include "widgets/timeformat.h"

#include "analysis/core/textformat.h"

#include <array>
#include <cmath>
#include <cstdlib>

namespace timesink::widgets {

namespace {

struct Unit
{
    model::TimeNs scale;
    const char16_t* name;
};

constexpr std::array<Unit, 4> kUnits {{{1'000'000'000, u"s"}, {1'000'000, u"ms"}, {1'000, u"µs"}, {1, u"ns"}}};

const Unit& unitFor(model::TimeNs magnitude)
{
    for (const Unit& u : kUnits) {
        if (magnitude >= u.scale)
            return u;
    }
    return kUnits.back();
}

} // namespace

QString TimeFormat::formatDuration(model::TimeNs ns)
{
    return QString::fromStdString(analysis::formatDuration(ns));
}

QString TimeFormat::formatPercent(double fraction)
{
    return QString::fromStdString(analysis::formatPercent(fraction));
}

QString TimeFormat::formatNumber(double value)
{
    return QString::fromStdString(analysis::formatGeneral(value, std::abs(value) >= 1000.0 ? 4 : 3));
}

QString TimeFormat::formatFraction(const analysis::efficiency::BoundedFraction& fraction)
{
    return QString::fromStdString(analysis::efficiency::formatFraction(fraction));
}

QString TimeFormat::formatOffset(model::TimeNs ns, model::TimeNs step, model::TimeNs magnitude)
{
    // The unit fits the largest label in view (at most ~1,000 steps away, so at most three decimals), not the step:
    // ticks 500 ns apart four microseconds into a view read "3.5 µs", not "3500 ns".
    const Unit& u = unitFor(std::max<model::TimeNs>({1, step, magnitude}));
    if (u.scale == 1)
        return QString::number(ns) + QStringLiteral(" ns");
    // Decimals needed so that consecutive ticks differ: step 500 µs in ms units needs one decimal.
    int decimals = 0;
    for (model::TimeNs s = u.scale; s > 1 && step % s != 0; s /= 10)
        ++decimals;
    const double v = static_cast<double>(ns) / static_cast<double>(u.scale);
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf16(u.name);
}

model::TimeNs TimeFormat::tickStep(double nsPerPixel, int minPixels)
{
    const double wanted = std::max(1.0, nsPerPixel * minPixels);
    model::TimeNs decade = 1;
    while (true) {
        for (model::TimeNs m : {1, 2, 5}) {
            if (static_cast<double>(decade * m) >= wanted)
                return decade * m;
        }
        if (decade > 1'000'000'000'000'000'000LL / 10)
            return decade * 10;
        decade *= 10;
    }
}

} // namespace timesink::widgets
