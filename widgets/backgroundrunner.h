// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

#include <functional>

namespace timesink::widgets {

/// Work a view hands off so that the window keeps answering (a call tree over a 10 GB trace takes seconds): it runs
/// away from the UI thread and returns what to do with its result there. It must not throw (views catch their own
/// failures and return a continuation that shows them) and may only read what it captured (a trace is immutable).
using BackgroundJob = std::function<std::function<void()>()>;
/// Runs a job somewhere and calls its continuation on `context`'s thread (dropped when `context` is gone).
using BackgroundRunner = std::function<void(QObject* context, BackgroundJob job)>;

/// Installed once by the application (gui::MainWindow, through gui::runInBackground: widgets start no threads).
/// Without one (widget tests, tools) jobs run inline, so results are there when the call returns.
void setBackgroundRunner(BackgroundRunner runner);
/// Runs `job` through the installed runner, or inline.
void runInBackground(QObject* context, BackgroundJob job);

} // namespace timesink::widgets
