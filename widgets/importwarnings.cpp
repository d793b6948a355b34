// SPDX-License-Identifier: MIT
#include "widgets/importwarnings.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace timesink::widgets {

namespace {

QString fromUtf8(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// "decompressed_limit" → "Decompressed limit".
QString kindLabel(std::string_view kind)
{
    QString label = fromUtf8(kind);
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!label.isEmpty())
        label[0] = label[0].toUpper();
    return label;
}

} // namespace

ImportWarningsBanner::ImportWarningsBanner(QWidget* parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("importWarningsBanner"));
    setAutoFillBackground(true);
    QPalette p = palette();
    // Amber in light and dark themes alike; text stays black on it.
    p.setColor(QPalette::Window, QColor(0xff, 0xe0, 0x8a));
    p.setColor(QPalette::WindowText, Qt::black);
    setPalette(p);
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    auto* icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(20, 20));
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details = new QPushButton(tr("All Warnings…"), this);
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_details, 0, Qt::AlignTop);
    connect(m_details, &QPushButton::clicked, this, &ImportWarningsBanner::detailsRequested);
    hide();
}

void ImportWarningsBanner::setWarnings(std::span<const model::ImportWarning> warnings)
{
    QStringList lines;
    std::uint64_t others = 0;
    for (const model::ImportWarning& w : warnings) {
        if (!isSeriousImportWarning(w.kind)) {
            others += w.count;
            continue;
        }
        QString line = QStringLiteral("<b>%1</b>").arg(kindLabel(w.kind).toHtmlEscaped());
        if (w.count > 1)
            line += QStringLiteral(" (%1×)").arg(w.count);
        line += QStringLiteral(": ") + fromUtf8(w.message).toHtmlEscaped();
        lines << line;
    }
    if (lines.isEmpty()) {
        hide();
        return;
    }
    QString html = tr("This trace may be incomplete; findings may miss what was lost.") + QStringLiteral("<br>")
        + lines.join(QStringLiteral("<br>"));
    if (others > 0)
        html += QStringLiteral("<br>") + tr("%n more warning(s) under View → Import Warnings.", nullptr, int(others));
    m_label->setText(html);
    show();
}

QString ImportWarningsBanner::text() const
{
    return m_label->text();
}

ImportWarningsDialog::ImportWarningsDialog(QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("importWarningsDialog"));
    setWindowTitle(tr("Import Warnings"));
    resize(820, 360);
    auto* layout = new QVBoxLayout(this);
    m_empty = new QLabel(tr("The importer reported no warnings for this trace."), this);
    m_table = new QTableWidget(0, 3, this);
    m_table->setHorizontalHeaderLabels({tr("Warning"), tr("Count"), tr("First occurrence")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_empty);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
}

void ImportWarningsDialog::setWarnings(std::span<const model::ImportWarning> warnings)
{
    std::vector<const model::ImportWarning*> sorted;
    for (const model::ImportWarning& w : warnings)
        sorted.push_back(&w);
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
        return isSeriousImportWarning(a->kind) && !isSeriousImportWarning(b->kind);
    });
    m_table->setRowCount(static_cast<int>(sorted.size()));
    for (int row = 0; row < static_cast<int>(sorted.size()); ++row) {
        const model::ImportWarning& w = *sorted[static_cast<std::size_t>(row)];
        auto* kind = new QTableWidgetItem(fromUtf8(w.kind));
        if (isSeriousImportWarning(w.kind))
            kind->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
        auto* count = new QTableWidgetItem(QString::number(w.count));
        count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 0, kind);
        m_table->setItem(row, 1, count);
        m_table->setItem(row, 2, new QTableWidgetItem(fromUtf8(w.message)));
    }
    m_table->resizeRowsToContents();
    m_empty->setVisible(sorted.empty());
    m_table->setVisible(!sorted.empty());
}

} // namespace timesink::widgets
