#include "providers/ChannelDialog.h"
#include "ui_ChannelDialog.h"

#include "providers/ConfigEdits.h"
#include "providers/InlineMessage.h"
#include "store/ConfigStore.h"

#include <QPushButton>
#include <QUrl>

#include <algorithm>

namespace sb {

ChannelDialog::ChannelDialog(ConfigStore &store, int channelId, QWidget *parent, int providerId)
    : QDialog(parent), m_ui(std::make_unique<Ui::ChannelDialog>()), m_store(store), m_channelId(channelId)
{
    m_ui->setupUi(this);
    setWindowTitle(channelId ? tr("Edit channel") : tr("Add channel"));
    for (QLabel *label : {m_ui->providerError, m_ui->modelError, m_ui->nameError, m_ui->egressError, m_ui->saveError})
        InlineMessage::prepare(label);
    m_ui->domainTitle->setForegroundRole(QPalette::PlaceholderText);
    m_ui->weightSpin->setToolTip(tr("Static share of traffic under the \"weighted\" strategy; health still scales it."));

    const EngineConfigPtr config = m_store.current();
    ChannelConfig initial;
    if (config && channelId)
        if (const ChannelConfig *c = config->channel(channelId))
            initial = *c;
    if (!channelId)
        initial.providerId = providerId;
    if (config)
        for (const auto &p : config->providers)
            m_ui->providerCombo->addItem(p.name, p.id);
    m_ui->providerCombo->setCurrentIndex(std::max(0, m_ui->providerCombo->findData(initial.providerId)));
    m_ui->modelEdit->setText(initial.upstreamModel);
    m_ui->nameEdit->setText(initial.name);
    m_nameEdited = channelId != 0;
    m_ui->weightSpin->setValue(initial.weight);
    m_ui->enabledCheck->setChecked(initial.enabled);
    m_ui->accountEdit->setText(initial.account);
    m_ui->regionEdit->setText(initial.region);
    m_ui->egressEdit->setText(initial.egressProxy);
    showProviderDomain();

    connect(m_ui->nameEdit, &QLineEdit::textEdited, this, [this] { m_nameEdited = true; });
    connect(m_ui->modelEdit, &QLineEdit::textChanged, this, &ChannelDialog::suggestName);
    connect(m_ui->providerCombo, &QComboBox::currentIndexChanged, this, [this] {
        suggestName();
        showProviderDomain();
        validate();
    });
    for (QLineEdit *edit : {m_ui->modelEdit, m_ui->nameEdit, m_ui->egressEdit})
        connect(edit, &QLineEdit::textChanged, this, &ChannelDialog::validate);
    QPushButton *save = m_ui->buttonBox->button(QDialogButtonBox::Save);
    save->setDefault(true);
    connect(save, &QPushButton::clicked, this, &ChannelDialog::save);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    validate();
}

ChannelDialog::~ChannelDialog() = default;

ChannelConfig ChannelDialog::channel() const
{
    ChannelConfig c;
    c.id = m_channelId;
    c.providerId = m_ui->providerCombo->currentData().toInt();
    c.upstreamModel = m_ui->modelEdit->text().trimmed();
    c.name = m_ui->nameEdit->text().trimmed();
    c.weight = m_ui->weightSpin->value();
    c.enabled = m_ui->enabledCheck->isChecked();
    c.account = m_ui->accountEdit->text().trimmed();
    c.region = m_ui->regionEdit->text().trimmed();
    c.egressProxy = m_ui->egressEdit->text().trimmed();
    return c;
}

void ChannelDialog::suggestName()
{
    if (m_nameEdited)
        return;
    const QString model = m_ui->modelEdit->text().trimmed();
    const QString provider = m_ui->providerCombo->currentText();
    m_ui->nameEdit->setText(model.isEmpty() ? QString() : QStringLiteral("%1/%2").arg(model, provider));
}

void ChannelDialog::showProviderDomain()
{
    const EngineConfigPtr config = m_store.current();
    const ProviderConfig *p = config ? config->provider(m_ui->providerCombo->currentData().toInt()) : nullptr;
    const FailureDomain d = p ? p->domain : FailureDomain{};
    auto placeholder = [](const QString &value) { return value.isEmpty() ? tr("none") : tr("provider: %1").arg(value); };
    m_ui->accountEdit->setPlaceholderText(placeholder(d.account));
    m_ui->regionEdit->setPlaceholderText(placeholder(d.region));
    m_ui->egressEdit->setPlaceholderText(placeholder(d.egressProxy));
}

void ChannelDialog::validate()
{
    m_problems.clear();
    auto check = [this](QLabel *label, const QString &problem) {
        InlineMessage::show(label, problem);
        if (!problem.isEmpty())
            m_problems << problem;
    };
    const EngineConfigPtr config = m_store.current();
    check(m_ui->providerError, m_ui->providerCombo->count() == 0 ? tr("Add a provider first; a channel belongs to one.") : QString());
    check(m_ui->modelError, m_ui->modelEdit->text().trimmed().isEmpty()
                                ? tr("Enter the model name the provider expects, e.g. gpt-4o-mini.")
                                : QString());
    const QString name = m_ui->nameEdit->text().trimmed();
    QString nameProblem;
    if (name.isEmpty())
        nameProblem = tr("Give the channel a name; charts and tables show it.");
    else if (config)
        for (const auto &c : config->channels)
            if (c.name == name && c.id != m_channelId)
                nameProblem = tr("Another channel is already named \"%1\".").arg(name);
    check(m_ui->nameError, nameProblem);
    const QString egress = m_ui->egressEdit->text().trimmed();
    const QUrl proxy(egress, QUrl::StrictMode);
    check(m_ui->egressError, !egress.isEmpty() && (!proxy.isValid() || proxy.host().isEmpty() || proxy.scheme().isEmpty())
                                 ? tr("The egress proxy must be a URL such as http://proxy.internal:3128, or empty.")
                                 : QString());
    m_ui->buttonBox->button(QDialogButtonBox::Save)->setEnabled(m_problems.isEmpty());
}

bool ChannelDialog::save()
{
    validate();
    if (!m_problems.isEmpty())
        return false;
    const EngineConfigPtr current = m_store.current();
    EngineConfig config = current ? *current : EngineConfig{};
    ChannelConfig c = channel();
    if (c.id == 0)
        c.id = ConfigEdits::nextChannelId(config);
    ConfigEdits::putChannel(config, c);
    const auto result = m_store.save(config, m_channelId ? tr("channel \"%1\" edited").arg(c.name)
                                                         : tr("channel \"%1\" added").arg(c.name));
    if (!result.ok()) {
        InlineMessage::show(m_ui->saveError, tr("Not saved: %1").arg(result.errors.join(QLatin1Char(' '))));
        return false;
    }
    m_channelId = c.id;
    emit saved(c.id);
    accept();
    return true;
}

} // namespace sb
