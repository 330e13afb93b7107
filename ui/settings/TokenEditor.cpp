#include "settings/TokenEditor.h"

#include <QApplication>
#include <QByteArray>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QToolButton>

#include <array>

namespace sb {

TokenEditor::TokenEditor(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("localToken"));
    m_edit->setPlaceholderText(tr("none — only loopback clients"));
    m_edit->setEchoMode(QLineEdit::Password);
    m_edit->setMinimumWidth(220);
    // A password field still lets the user type; it just never shows or copies out the text.
    m_edit->setContextMenuPolicy(Qt::NoContextMenu);

    m_show = new QToolButton(this);
    m_show->setObjectName(QStringLiteral("showToken"));
    m_show->setText(tr("Show"));
    m_show->setCheckable(true);
    m_show->setToolTip(tr("Show the token on screen"));
    m_generate = new QToolButton(this);
    m_generate->setObjectName(QStringLiteral("generateToken"));
    m_generate->setText(tr("Generate"));
    m_generate->setToolTip(tr("Replace the token with a new random one (clients must be given the new one)"));
    m_copy = new QToolButton(this);
    m_copy->setObjectName(QStringLiteral("copyToken"));
    m_copy->setText(tr("Copy"));
    m_copy->setToolTip(tr("Copy the token to the clipboard without showing it"));

    layout->addWidget(m_edit, 1);
    layout->addWidget(m_show);
    layout->addWidget(m_generate);
    layout->addWidget(m_copy);

    // textChanged, not textEdited: Generate and setToken() are edits too (the page ignores its own loads).
    connect(m_edit, &QLineEdit::textChanged, this, &TokenEditor::tokenEdited);
    connect(m_show, &QToolButton::toggled, this, &TokenEditor::setRevealed);
    connect(m_generate, &QToolButton::clicked, this, [this] {
        m_edit->setText(generateToken());
    });
    connect(m_copy, &QToolButton::clicked, this, [this] {
        if (!m_edit->text().isEmpty())
            QApplication::clipboard()->setText(m_edit->text());
    });
}

QString TokenEditor::token() const
{
    return m_edit->text();
}

void TokenEditor::setToken(const QString &token)
{
    m_edit->setText(token);
    m_edit->home(false); // a long masked token shows from its start, not as dots cut off at the left edge
}

bool TokenEditor::isRevealed() const
{
    return m_edit->echoMode() == QLineEdit::Normal;
}

void TokenEditor::setRevealed(bool revealed)
{
    m_edit->setEchoMode(revealed ? QLineEdit::Normal : QLineEdit::Password);
    m_show->setText(revealed ? tr("Hide") : tr("Show"));
    m_show->setToolTip(revealed ? tr("Mask the token again") : tr("Show the token on screen"));
}

QString TokenEditor::generateToken()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), static_cast<qsizetype>(words.size()));
    const QByteArray bytes(reinterpret_cast<const char *>(words.data()), static_cast<qsizetype>(sizeof(words)));
    return QStringLiteral("sb-")
        + QString::fromLatin1(bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

} // namespace sb
