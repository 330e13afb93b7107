#include "providers/ProviderDialog.h"
#include "ui_ProviderDialog.h"

#include "common/Clock.h"
#include "common/SecretMask.h"
#include "model/DialectRules.h"
#include "providers/ConfigEdits.h"
#include "providers/InlineMessage.h"
#include "providers/KeyDialog.h"
#include "providers/KeyTableModel.h"
#include "providers/ProviderRegistry.h"
#include "providers/ernie/ErnieAdapter.h"
#include "store/ConfigStore.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QPushButton>
#include <QUrl>

namespace sb {

namespace {

bool isHttpUrl(const QString &text)
{
    const QUrl url(text.trimmed(), QUrl::StrictMode);
    return url.isValid() && (url.scheme() == u"http" || url.scheme() == u"https") && !url.host().isEmpty();
}

bool isDefaultUrl(const QString &text)
{
    for (const ProviderAdapter *a : ProviderRegistry::all())
        if (a->defaultBaseUrl() == text.trimmed())
            return true;
    return false;
}

std::chrono::milliseconds fromSeconds(double s)
{
    return std::chrono::milliseconds(qRound64(s * 1000.0));
}

double toSecondsValue(std::chrono::milliseconds ms)
{
    return double(ms.count()) / 1000.0;
}

} // namespace

ProviderDialog::ProviderDialog(ConfigStore &store, int providerId, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ProviderDialog>())
    , m_store(store)
    , m_providerId(providerId)
    , m_test(std::make_unique<ConnectionTest>(SystemClock::instance()))
{
    m_ui->setupUi(this);
    setWindowTitle(providerId ? tr("Edit provider") : tr("Add provider"));
    for (QLabel *label : {m_ui->nameError, m_ui->dialectError, m_ui->baseUrlError, m_ui->keysHint, m_ui->timeoutsError,
                          m_ui->egressError, m_ui->tlsError, m_ui->saveError})
        InlineMessage::prepare(label);
    m_ui->testResult->setWordWrap(true);
    m_ui->dialectHint->setForegroundRole(QPalette::PlaceholderText);
    for (QLabel *label : {m_ui->nameLabel, m_ui->baseUrlLabel, m_ui->timeoutsLabel, m_ui->domainLabel, m_ui->limitsLabel, m_ui->tlsLabel})
        label->setMinimumWidth(label->sizeHint().width());
    // In the rows of several fields each name keeps its distance from the field before it, so it
    // reads as the next field's ("RPM 3,000   TPM …"), not glued to the previous one's arrows.
    for (QLabel *label : {m_ui->tpmLabel, m_ui->burstLabel, m_ui->fallbackLabel, m_ui->connectLabel, m_ui->regionLabel, m_ui->egressLabel})
        label->setContentsMargins(10, 0, 0, 0);
    // The egress proxy is a URL: it gets the room its placeholder needs.
    m_ui->domainRow->setStretchFactor(m_ui->accountEdit, 1);
    m_ui->domainRow->setStretchFactor(m_ui->regionEdit, 1);
    m_ui->domainRow->setStretchFactor(m_ui->egressEdit, 2);
    m_ui->rpmSpin->setToolTip(tr("Requests per minute for this provider's token bucket; 0 = unlimited."));
    m_ui->tpmSpin->setToolTip(tr("Tokens per minute; 0 = unlimited."));
    m_ui->burstSpin->setToolTip(tr("Requests allowed at once above the steady rate; 0 = RPM / 6."));
    m_ui->primarySpin->setToolTip(tr("Budget of an attempt on this provider as a route's first choice (30 s by default)."));
    m_ui->fallbackSpin->setToolTip(tr("Budget when it is the fallback (20 s by default: split budgets cut the wait in incidents)."));
    m_ui->connectSpin->setToolTip(tr("TCP and TLS handshake."));
    m_ui->egressEdit->setToolTip(tr("Optional HTTP(S) or SOCKS proxy this provider's traffic leaves through."));
    m_ui->skipVerifyCheck->setContentsMargins(10, 0, 0, 0);
    m_ui->tlsRow->setStretchFactor(m_ui->caBundleEdit, 1);
    m_ui->caBundleEdit->setToolTip(tr("A PEM file of the certificate authorities to trust for this provider instead of the system's: "
                                      "a local server with its own CA, or a TLS-inspecting corporate egress. Empty: the system's CAs."));
    m_ui->skipVerifyCheck->setToolTip(tr("Do not check this provider's certificate or host name at all. Anyone on the path could then "
                                         "read its keys and answers: for a lab server with a throwaway certificate only. A CA bundle "
                                         "is the safe way to trust a certificate of your own."));
    m_ui->http2Check->setContentsMargins(10, 0, 0, 0);
    m_ui->http2Check->setToolTip(tr("Offer HTTP/2 to this provider and, if it takes it, send many requests over few connections. "
                                    "Off: HTTP/1.1 connections kept alive, which cost less per request, and a broken connection "
                                    "takes only its own request with it."));

    for (const ProviderAdapter *a : ProviderRegistry::all())
        m_ui->dialectCombo->addItem(a->displayName(), a->dialect());

    m_keys = new KeyTableModel(this);
    m_ui->keysView->setModel(m_keys);
    m_ui->keysView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_ui->keysView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_ui->keysView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ui->keysView->verticalHeader()->setVisible(false);
    m_ui->keysView->setShowGrid(false);
    m_ui->keysView->setAlternatingRowColors(true);
    m_ui->keysView->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_ui->keysView->horizontalHeader()->setStretchLastSection(true);
    m_ui->keysView->setColumnWidth(KeyTableModel::Key, 130);
    m_ui->keysView->setColumnWidth(KeyTableModel::Label, 150);
    m_ui->keysView->setColumnWidth(KeyTableModel::Status, 170);
    m_ui->keysView->setMinimumHeight(m_ui->keysView->fontMetrics().height() * 7);

    ProviderConfig initial;
    if (providerId != 0) {
        const EngineConfigPtr config = m_store.current();
        if (const ProviderConfig *p = config ? config->provider(providerId) : nullptr)
            initial = *p;
        m_nameEdited = true;
        m_urlEdited = !isDefaultUrl(initial.baseUrl);
    } else {
        initial.dialect = ProviderRegistry::all().front()->dialect();
    }
    load(initial);
    if (providerId == 0)
        onDialectChanged();

    connect(m_ui->nameEdit, &QLineEdit::textEdited, this, [this] { m_nameEdited = true; });
    connect(m_ui->baseUrlEdit, &QLineEdit::textEdited, this, [this] { m_urlEdited = true; });
    connect(m_ui->dialectCombo, &QComboBox::currentIndexChanged, this, &ProviderDialog::onDialectChanged);
    connect(m_ui->dialectCombo, &QComboBox::currentIndexChanged, this, &ProviderDialog::validate); // whether it needs a key
    connect(m_ui->enabledCheck, &QCheckBox::toggled, this, &ProviderDialog::validate);
    for (QLineEdit *edit : {m_ui->nameEdit, m_ui->baseUrlEdit, m_ui->egressEdit, m_ui->caBundleEdit})
        connect(edit, &QLineEdit::textChanged, this, &ProviderDialog::validate);
    connect(m_ui->skipVerifyCheck, &QCheckBox::toggled, this, [this](bool skip) {
        m_ui->caBundleEdit->setEnabled(!skip); // nothing is verified, so there is nothing to verify against
        m_ui->caBundleBrowse->setEnabled(!skip);
        validate();
    });
    connect(m_ui->caBundleBrowse, &QPushButton::clicked, this, [this] {
        const QString start = m_ui->caBundleEdit->text().trimmed().isEmpty() ? QStringLiteral("/etc/ssl") : m_ui->caBundleEdit->text().trimmed();
        const QString file = QFileDialog::getOpenFileName(this, tr("CA bundle for this provider"), start,
                                                          tr("PEM certificates (*.pem *.crt *.cer);;All files (*)"));
        if (!file.isEmpty())
            m_ui->caBundleEdit->setText(file);
    });
    for (QDoubleSpinBox *spin : {m_ui->primarySpin, m_ui->fallbackSpin, m_ui->connectSpin})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ProviderDialog::validate);
    connect(m_keys, &QAbstractItemModel::rowsInserted, this, &ProviderDialog::validate);
    connect(m_keys, &QAbstractItemModel::rowsRemoved, this, &ProviderDialog::validate);
    connect(m_keys, &QAbstractItemModel::dataChanged, this, &ProviderDialog::validate);

    auto selectedKey = [this] {
        const QModelIndexList rows = m_ui->keysView->selectionModel()->selectedRows();
        return rows.isEmpty() ? -1 : rows.first().row();
    };
    auto updateKeyButtons = [this, selectedKey] {
        const bool any = selectedKey() >= 0;
        m_ui->editKeyButton->setEnabled(any);
        m_ui->removeKeyButton->setEnabled(any);
        m_ui->testKeyButton->setEnabled(any && !m_test->isRunning());
        // Only a saved key the provider refused has anything to re-enable; an unsaved edit waits for Save.
        const int row = selectedKey();
        m_ui->reenableKeyButton->setEnabled(row >= 0 && m_keys->keyAt(row).refused() && m_keys->keyAt(row).id > 0);
    };
    connect(m_ui->keysView->selectionModel(), &QItemSelectionModel::selectionChanged, this, updateKeyButtons);
    connect(m_keys, &QAbstractItemModel::modelReset, this, updateKeyButtons);
    connect(m_keys, &QAbstractItemModel::dataChanged, this, updateKeyButtons);
    updateKeyButtons();
    connect(m_ui->addKeyButton, &QPushButton::clicked, this, [this] { openKeyDialog(-1); });
    connect(m_ui->editKeyButton, &QPushButton::clicked, this, [this, selectedKey] { openKeyDialog(selectedKey()); });
    connect(m_ui->keysView, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &i) { openKeyDialog(i.row()); });
    connect(m_ui->removeKeyButton, &QPushButton::clicked, this, [this, selectedKey] { m_keys->removeKey(selectedKey()); });
    connect(m_ui->testKeyButton, &QPushButton::clicked, this, [this, selectedKey] { testKey(selectedKey()); });
    connect(m_ui->reenableKeyButton, &QPushButton::clicked, this, [this, selectedKey] { reenableKey(selectedKey()); });
    connect(m_ui->testButton, &QPushButton::clicked, this, &ProviderDialog::testConnection);
    connect(m_test.get(), &ConnectionTest::finished, this, &ProviderDialog::showTestResult);

    QPushButton *saveButton = m_ui->buttonBox->button(QDialogButtonBox::Save);
    saveButton->setDefault(true);
    connect(saveButton, &QPushButton::clicked, this, &ProviderDialog::save);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    validate();
    resize(sizeHint().expandedTo(QSize(760, 0)));
}

ProviderDialog::~ProviderDialog() = default;

void ProviderDialog::load(const ProviderConfig &p)
{
    const QSignalBlocker block(m_ui->dialectCombo);
    m_ui->nameEdit->setText(p.name);
    const int dialect = m_ui->dialectCombo->findData(p.dialect);
    if (dialect < 0 && !p.dialect.isEmpty())
        m_ui->dialectCombo->addItem(tr("unknown (%1)").arg(p.dialect), p.dialect);
    m_ui->dialectCombo->setCurrentIndex(dialect >= 0 ? dialect : m_ui->dialectCombo->count() - 1);
    m_ui->baseUrlEdit->setText(p.baseUrl);
    m_ui->enabledCheck->setChecked(p.enabled);
    m_ui->responsesApiCheck->setChecked(p.responsesApi);
    m_ui->responsesApiCheck->setVisible(p.dialect == QLatin1String("openai_compat"));
    m_keys->setKeys(p.keys);
    m_ui->rpmSpin->setValue(p.requestsPerMinute);
    m_ui->tpmSpin->setValue(p.tokensPerMinute);
    m_ui->burstSpin->setValue(p.burst);
    m_ui->primarySpin->setValue(toSecondsValue(p.primaryTimeout));
    m_ui->fallbackSpin->setValue(toSecondsValue(p.fallbackTimeout));
    m_ui->connectSpin->setValue(toSecondsValue(p.connectTimeout));
    m_ui->accountEdit->setText(p.domain.account);
    m_ui->regionEdit->setText(p.domain.region);
    m_ui->egressEdit->setText(p.domain.egressProxy);
    m_ui->caBundleEdit->setText(p.caBundle);
    m_ui->skipVerifyCheck->setChecked(p.tlsSkipVerify);
    m_ui->http2Check->setChecked(p.http2);
    m_ui->caBundleEdit->setEnabled(!p.tlsSkipVerify);
    m_ui->caBundleBrowse->setEnabled(!p.tlsSkipVerify);
}

ProviderConfig ProviderDialog::provider() const
{
    ProviderConfig p;
    const EngineConfigPtr config = m_store.current();
    if (const ProviderConfig *existing = config && m_providerId ? config->provider(m_providerId) : nullptr)
        p = *existing; // fields the dialog does not show survive an edit
    p.id = m_providerId;
    p.name = m_ui->nameEdit->text().trimmed();
    p.dialect = m_ui->dialectCombo->currentData().toString();
    p.baseUrl = m_ui->baseUrlEdit->text().trimmed();
    p.enabled = m_ui->enabledCheck->isChecked();
    p.responsesApi = p.dialect == QLatin1String("openai_compat") && m_ui->responsesApiCheck->isChecked(); // no other dialect has it
    p.keys = m_keys->keys();
    p.requestsPerMinute = m_ui->rpmSpin->value();
    p.tokensPerMinute = m_ui->tpmSpin->value();
    p.burst = m_ui->burstSpin->value();
    p.primaryTimeout = fromSeconds(m_ui->primarySpin->value());
    p.fallbackTimeout = fromSeconds(m_ui->fallbackSpin->value());
    p.connectTimeout = fromSeconds(m_ui->connectSpin->value());
    p.domain.account = m_ui->accountEdit->text().trimmed();
    p.domain.region = m_ui->regionEdit->text().trimmed();
    p.domain.egressProxy = m_ui->egressEdit->text().trimmed();
    p.tlsSkipVerify = m_ui->skipVerifyCheck->isChecked();
    p.http2 = m_ui->http2Check->isChecked();
    p.caBundle = p.tlsSkipVerify ? QString() : m_ui->caBundleEdit->text().trimmed(); // a disabled field says nothing
    return p;
}

QString ProviderDialog::suggestedName(const QString &dialect) const
{
    QString base = dialect;
    base.replace(QLatin1Char('_'), QLatin1Char('-'));
    const EngineConfigPtr config = m_store.current();
    auto taken = [&](const QString &name) {
        if (!config)
            return false;
        for (const auto &p : config->providers)
            if (p.name == name && p.id != m_providerId)
                return true;
        return false;
    };
    QString name = base;
    for (int n = 2; taken(name); ++n)
        name = QStringLiteral("%1-%2").arg(base).arg(n);
    return name;
}

void ProviderDialog::onDialectChanged()
{
    const QString dialect = m_ui->dialectCombo->currentData().toString();
    const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
    if (!adapter)
        return;
    // Only what the user has not typed themselves: a URL that is some dialect's default is ours to replace.
    if (!m_urlEdited || m_ui->baseUrlEdit->text().trimmed().isEmpty() || isDefaultUrl(m_ui->baseUrlEdit->text())) {
        m_ui->baseUrlEdit->setText(adapter->defaultBaseUrl());
        m_urlEdited = false;
    }
    if (!m_nameEdited)
        m_ui->nameEdit->setText(suggestedName(dialect));
    m_ui->responsesApiCheck->setVisible(dialect == QLatin1String("openai_compat"));
    m_ui->testResult->clear();
}

void ProviderDialog::validate()
{
    m_problems.clear();
    auto check = [this](QLabel *label, const QString &problem) {
        InlineMessage::show(label, problem);
        if (!problem.isEmpty())
            m_problems << problem;
    };

    const QString name = m_ui->nameEdit->text().trimmed();
    QString nameProblem;
    if (name.isEmpty()) {
        nameProblem = tr("Give the provider a name, e.g. \"openai-main\".");
    } else if (const EngineConfigPtr config = m_store.current()) {
        for (const auto &p : config->providers)
            if (p.name == name && p.id != m_providerId)
                nameProblem = tr("Another provider is already named \"%1\"; choose another name.").arg(name);
    }
    check(m_ui->nameError, nameProblem);

    // A dialect the stored configuration names but this build does not speak (a typo in an imported
    // file, a newer version's): every request would fail, so it cannot be saved as it is.
    const QString dialect = m_ui->dialectCombo->currentData().toString();
    check(m_ui->dialectError, findDialectRule(dialect) ? QString() : unknownDialectSentence(name, dialect));

    const QString url = m_ui->baseUrlEdit->text().trimmed();
    check(m_ui->baseUrlError, url.isEmpty() ? tr("Enter the provider's base URL, e.g. https://api.openai.com/v1.")
                              : !isHttpUrl(url) ? tr("\"%1\" is not an http:// or https:// URL with a host.").arg(url)
                                                : QString());

    QString timeoutProblem;
    if (m_ui->connectSpin->value() > m_ui->primarySpin->value() || m_ui->connectSpin->value() > m_ui->fallbackSpin->value())
        timeoutProblem = tr("The connect timeout cannot be longer than the primary or fallback timeout.");
    check(m_ui->timeoutsError, timeoutProblem);

    const QString egress = m_ui->egressEdit->text().trimmed();
    QString egressProblem;
    if (!egress.isEmpty()) {
        const QUrl proxy(egress, QUrl::StrictMode);
        static const QStringList schemes{QStringLiteral("http"), QStringLiteral("https"), QStringLiteral("socks4"),
                                         QStringLiteral("socks5"), QStringLiteral("socks5h")};
        if (!proxy.isValid() || !schemes.contains(proxy.scheme()) || proxy.host().isEmpty())
            egressProblem = tr("The egress proxy must be a URL such as http://proxy.internal:3128 or socks5://host:1080, or empty.");
    }
    check(m_ui->egressError, egressProblem);

    // The trust setting: a bundle must be a file this machine can read; skipping verification is
    // allowed, and said plainly every time the dialog shows it.
    if (m_ui->skipVerifyCheck->isChecked()) {
        InlineMessage::show(m_ui->tlsError,
                            tr("Certificates are not verified: anyone between Switchboard and this provider could read its keys "
                               "and answers. Prefer a CA bundle with the server's certificate."),
                            InlineMessage::Kind::Warning);
    } else {
        const QString bundle = m_ui->caBundleEdit->text().trimmed();
        QString bundleProblem;
        if (!bundle.isEmpty()) {
            const QFileInfo info(bundle);
            if (!info.isAbsolute())
                bundleProblem = tr("The CA bundle must be an absolute path, e.g. /etc/ssl/private-ca.pem, or empty for the system's CAs.");
            else if (!info.isFile() || !info.isReadable())
                bundleProblem = tr("No readable file at \"%1\"; choose the PEM file of the CAs that signed this provider's certificate.")
                                    .arg(bundle);
        }
        check(m_ui->tlsError, bundleProblem);
    }

    // A dialect that needs a key cannot go without one; a disabled provider may wait for its keys,
    // and an OpenAI-compatible server or one on this machine may need none. The rest is advice.
    int enabled = 0;
    for (const auto &k : m_keys->keys())
        enabled += k.enabled && !k.refused() && !k.secretUnreadable() ? 1 : 0;
    if (lacksNeededKey(dialect, url, m_ui->enabledCheck->isChecked(), m_keys->rowCount())) {
        const DialectRule *rule = findDialectRule(dialect);
        check(m_ui->keysHint, tr("No keys yet: %1 refuses every request without one. Add a key, or untick Enabled to save "
                                 "the provider until you have one.").arg(rule ? rule->service : dialect));
    } else {
        QString advice = m_keys->rowCount() == 0 ? tr("No keys yet: requests to this provider will fail until you add one.")
                         : enabled == 0          ? tr("Every key is disabled: requests to this provider will fail.")
                         : enabled == 1          ? tr("One enabled key: add a second so a rate-limited key can rotate out.")
                                                 : QString();
        InlineMessage::Kind kind = enabled == 1 ? InlineMessage::Kind::Info : InlineMessage::Kind::Warning;
        if (dialect == QLatin1String("ernie")) {
            // What a key of this dialect is, and what a raw token costs (ARCHITECTURE.md, "Keys exchanged for access tokens").
            int rawTokens = 0;
            for (const auto &k : m_keys->keys())
                rawTokens += k.enabled && !ErnieAdapter::credentialPair(k.secret) ? 1 : 0;
            const QString ernie =
                rawTokens > 0
                    ? tr("%n key(s) without a colon are raw access tokens: they lapse after 30 days, and ERNIE has no free "
                         "probe for them, so the heartbeat is a 2-token chat call (sent once a minute while the channel is "
                         "idle, not every 10 s). Enter Baidu's API key and secret key as API_KEY:SECRET_KEY instead.",
                         nullptr, rawTokens)
                    : tr("Enter each key as API_KEY:SECRET_KEY (Baidu's pair): Switchboard exchanges it for an access token, "
                         "renews it before it expires, and heartbeats with that exchange, which costs no tokens.");
            advice = advice.isEmpty() ? ernie : advice + QLatin1Char(' ') + ernie;
            if (rawTokens > 0)
                kind = InlineMessage::Kind::Warning;
            else if (advice == ernie)
                kind = InlineMessage::Kind::Info;
        }
        InlineMessage::show(m_ui->keysHint, advice, kind);
    }

    m_ui->buttonBox->button(QDialogButtonBox::Save)->setEnabled(m_problems.isEmpty());
    m_ui->testButton->setEnabled(m_ui->baseUrlError->text().isEmpty() && !m_test->isRunning());
}

void ProviderDialog::reenableKey(int row)
{
    if (row < 0 || row >= m_keys->rowCount())
        return;
    ApiKeyConfig key = m_keys->keyAt(row);
    // At once, not with Save: the stored refusal is the engine's, and the engine takes the key back now.
    QString error;
    if (!m_store.reenableKey(key.id, &error)) {
        InlineMessage::show(m_ui->keysHint, error);
        return;
    }
    key.refusedAtMs = 0;
    key.refusedReason.clear();
    m_keys->replaceKey(row, key);
    InlineMessage::show(m_ui->keysHint, tr("Key \"%1\" is back in rotation.").arg(key.label.isEmpty() ? maskSecret(key.secret) : key.label),
                        InlineMessage::Kind::Success);
}

void ProviderDialog::openKeyDialog(int row)
{
    const bool isNew = row < 0 || row >= m_keys->rowCount();
    auto *dialog = new KeyDialog(isNew ? ApiKeyConfig{} : m_keys->keyAt(row), isNew, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, row, isNew] {
        if (isNew)
            m_keys->addKey(dialog->key());
        else
            m_keys->replaceKey(row, dialog->key());
    });
    dialog->open();
}

bool ProviderDialog::save()
{
    validate();
    if (!m_problems.isEmpty())
        return false;
    const EngineConfigPtr current = m_store.current();
    EngineConfig config = current ? *current : EngineConfig{};
    ProviderConfig p = provider();
    if (p.id == 0)
        p.id = ConfigEdits::nextProviderId(config);
    ConfigEdits::putProvider(config, p);
    const auto result = m_store.save(config, m_providerId ? tr("provider \"%1\" edited").arg(p.name)
                                                          : tr("provider \"%1\" added").arg(p.name));
    if (!result.ok()) {
        InlineMessage::show(m_ui->saveError, tr("Not saved: %1").arg(result.errors.join(QLatin1Char(' '))));
        return false;
    }
    InlineMessage::show(m_ui->saveError, QString());
    m_providerId = p.id;
    emit saved(p.id);
    accept();
    return true;
}

void ProviderDialog::testConnection()
{
    const auto &keys = m_keys->keys();
    for (int row = 0; row < int(keys.size()); ++row)
        if (keys[std::size_t(row)].enabled) {
            testKey(row);
            return;
        }
    // Some local servers need no key; probe without one and let the answer speak.
    startTest(QString(), -1);
}

void ProviderDialog::testKey(int row)
{
    if (row < 0 || row >= m_keys->rowCount())
        return;
    QString secret = m_keys->keyAt(row).secret;
    startTest(secret, row);
}

void ProviderDialog::startTest(const QString &secret, int keyRow)
{
    QString model;
    const ProviderConfig p = provider();
    if (const EngineConfigPtr config = m_store.current())
        for (const auto &c : config->channels)
            if (c.providerId == p.id) {
                model = c.upstreamModel; // dialects whose probe is a tiny chat call need a model name
                break;
            }
    m_testKeyRow = keyRow;
    const QString which = keyRow >= 0 ? maskSecret(secret) : tr("no key");
    InlineMessage::show(m_ui->testResult, tr("Testing %1 with %2…").arg(p.baseUrl, which), InlineMessage::Kind::Info);
    m_ui->testButton->setEnabled(false);
    m_ui->testKeyButton->setEnabled(false);
    m_test->start(p, secret, model, p.connectTimeout + std::chrono::seconds(10));
}

void ProviderDialog::showTestResult(const ConnectionTest::Result &result)
{
    const InlineMessage::Kind kind = result.verdict == ConnectionTest::Verdict::Passed    ? InlineMessage::Kind::Success
                                     : result.verdict == ConnectionTest::Verdict::Warning ? InlineMessage::Kind::Warning
                                                                                          : InlineMessage::Kind::Error;
    QString text = result.text();
    if (m_testKeyRow >= 0 && m_testKeyRow < m_keys->rowCount()) {
        m_keys->setTestResult(m_testKeyRow, text);
        text = tr("Key %1: %2").arg(maskSecret(m_keys->keyAt(m_testKeyRow).secret), text);
    }
    InlineMessage::show(m_ui->testResult, text, kind);
    m_testKeyRow = -1;
    validate();
    m_ui->testKeyButton->setEnabled(m_ui->keysView->selectionModel()->hasSelection());
}

} // namespace sb
