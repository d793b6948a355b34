// SPDX-License-Identifier: MIT
#include "app/gui/viewhub.h"

namespace timesink::gui {

ViewHub::ViewHub(widgets::TimelineView* timeline, QObject* parent)
    : QObject(parent)
    , m_timeline(timeline)
{
    setObjectName(QStringLiteral("ViewHub"));
}

} // namespace timesink::gui
