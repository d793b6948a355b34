// SPDX-License-Identifier: MIT
#include "widgets/backgroundrunner.h"

#include <utility>

namespace timesink::widgets {

namespace {

BackgroundRunner& installed()
{
    static BackgroundRunner runner;
    return runner;
}

} // namespace

void setBackgroundRunner(BackgroundRunner runner)
{
    installed() = std::move(runner);
}

void runInBackground(QObject* context, BackgroundJob job)
{
    if (installed()) {
        installed()(context, std::move(job));
        return;
    }
    const std::function<void()> then = job();
    then();
}

} // namespace timesink::widgets
