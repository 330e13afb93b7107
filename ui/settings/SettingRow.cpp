#include "settings/SettingRow.h"

#include "ConsoleStyle.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace sb {

SettingRow::SettingRow(QWidget *editor, const QString &unit, const QString &defaultText, QWidget *parent)
    : QWidget(parent), m_editor(editor)
{
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    auto *line = new QHBoxLayout;
    line->setSpacing(6);
    editor->setParent(this);
    line->addWidget(editor);
    if (!unit.isEmpty()) {
        auto *unitLabel = new QLabel(unit, this);
        unitLabel->setObjectName(QStringLiteral("unit"));
        line->addWidget(unitLabel);
    }
    line->addStretch(1);
    m_default = new QLabel(defaultText.isEmpty() ? QString() : tr("default %1").arg(defaultText), this);
    m_default->setObjectName(QStringLiteral("default"));
    m_default->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    line->addWidget(m_default);
    m_reset = new QToolButton(this);
    m_reset->setObjectName(QStringLiteral("reset"));
    m_reset->setText(tr("Reset"));
    m_reset->setToolTip(defaultText.isEmpty() ? tr("Reset to the default") : tr("Reset to the default, %1").arg(defaultText));
    m_reset->setAutoRaise(true);
    line->addWidget(m_reset);
    column->addLayout(line);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    // The open-circuit red reads on both the light and the dark palette.
    m_error->setStyleSheet(QStringLiteral("color: %1;").arg(stateColor(ChannelState::Open).lighter(115).name()));
    m_error->hide();
    column->addWidget(m_error);

    connect(m_reset, &QToolButton::clicked, this, &SettingRow::resetRequested);
}

void SettingRow::setError(const QString &sentence)
{
    m_error->setText(sentence);
    m_error->setVisible(!sentence.isEmpty());
}

QString SettingRow::error() const
{
    return m_error->text();
}

void SettingRow::setDefaulted(bool atDefault)
{
    m_reset->setEnabled(!atDefault);
}

} // namespace sb
