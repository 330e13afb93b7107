#include "providers/PriceEditor.h"

#include "providers/InlineMessage.h"
#include "providers/PriceTableModel.h"
#include "store/ConfigStore.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace sb {

PriceEditor::PriceEditor(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->setSpacing(4);
    auto *row = new QHBoxLayout;
    auto *label = new QLabel(tr("Prices"), this);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    auto *hint = new QLabel(tr("US dollars per 1M tokens, per model as channels name it; a dated version takes its undated name's price."), this);
    hint->setForegroundRole(QPalette::PlaceholderText);
    m_add = new QPushButton(tr("Add price"), this);
    m_remove = new QPushButton(tr("Remove"), this);
    m_revert = new QPushButton(tr("Revert"), this);
    m_save = new QPushButton(tr("Save prices"), this);
    m_add->setObjectName(QStringLiteral("add_price"));
    m_remove->setObjectName(QStringLiteral("remove_price"));
    m_revert->setObjectName(QStringLiteral("revert_prices"));
    m_save->setObjectName(QStringLiteral("save_prices"));
    row->addWidget(label);
    row->addSpacing(8);
    row->addWidget(hint, 1);
    for (QPushButton *b : {m_add, m_remove, m_revert, m_save})
        row->addWidget(b);
    layout->addLayout(row);

    m_model = new PriceTableModel(this);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("priceTable"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 12);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    const int digits = m_view->fontMetrics().horizontalAdvance(QStringLiteral("Cache write $ / 1M")) + 32;
    m_view->setColumnWidth(PriceTableModel::Model, 260);
    for (int column : {PriceTableModel::Input, PriceTableModel::CachedInput, PriceTableModel::CacheWrite, PriceTableModel::Output})
        m_view->setColumnWidth(column, digits);
    layout->addWidget(m_view, 1);

    m_problems = new QLabel(this);
    m_problems->setObjectName(QStringLiteral("priceProblems"));
    InlineMessage::prepare(m_problems);
    layout->addWidget(m_problems);
    m_unpriced = new QLabel(this);
    m_unpriced->setObjectName(QStringLiteral("unpricedChannels"));
    InlineMessage::prepare(m_unpriced);
    layout->addWidget(m_unpriced);

    connect(m_add, &QPushButton::clicked, this, [this] {
        const int row = m_model->addRow();
        const QModelIndex cell = m_model->index(row, PriceTableModel::Model);
        m_view->setCurrentIndex(cell);
        m_view->edit(cell);
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = m_view->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            m_model->removeAt(rows.first().row());
    });
    connect(m_revert, &QPushButton::clicked, this, &PriceEditor::revert);
    connect(m_save, &QPushButton::clicked, this, &PriceEditor::save);
    connect(m_model, &PriceTableModel::draftChanged, this, &PriceEditor::updateState);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &PriceEditor::updateState);
    updateState();
}

void PriceEditor::setConfigStore(ConfigStore *store)
{
    m_store = store; // the page forwards the store's configChanged to setConfig()
    m_model->reset(store ? store->current() : nullptr);
    updateState();
}

void PriceEditor::setConfig(sb::EngineConfigPtr config)
{
    // Another save (a dialog, a deleted channel) must not throw away prices being typed.
    if (m_model->dirty())
        m_model->setConfig(config);
    else
        m_model->reset(config);
    updateState();
}

void PriceEditor::updateState()
{
    const bool editable = m_store != nullptr;
    const QStringList problems = m_model->problems();
    InlineMessage::show(m_problems, problems.join(QLatin1Char('\n')));
    const QStringList unpriced = m_model->unpricedChannels();
    InlineMessage::show(m_unpriced,
                        unpriced.isEmpty() ? QString()
                                           : tr("No price for %1: the cost of their requests stays unknown (not $0).")
                                                 .arg(unpriced.join(QStringLiteral(", "))),
                        InlineMessage::Kind::Warning);
    m_view->setEditTriggers(editable ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed | QAbstractItemView::AnyKeyPressed
                                     : QAbstractItemView::NoEditTriggers);
    m_add->setEnabled(editable);
    m_remove->setEnabled(editable && !m_view->selectionModel()->selectedRows().isEmpty());
    m_revert->setEnabled(editable && m_model->dirty());
    m_save->setEnabled(editable && m_model->dirty() && problems.isEmpty());
    m_save->setToolTip(problems.isEmpty() ? tr("Save the price table; the running engine prices the next request with it")
                                          : tr("Fix the problems listed under the table first"));
}

bool PriceEditor::save()
{
    if (!m_store || !m_model->problems().isEmpty())
        return false;
    const EngineConfigPtr current = m_store->current();
    EngineConfig config = current ? *current : EngineConfig{};
    config.prices = m_model->prices();
    const auto result = m_store->save(config, tr("prices edited (%n model(s))", nullptr, int(config.prices.size())));
    if (!result.ok()) {
        InlineMessage::show(m_problems, tr("Not saved: %1").arg(result.errors.join(QLatin1Char(' '))));
        return false;
    }
    m_model->reset(result.config); // the saved table, as the repository will load it
    updateState();
    return true;
}

void PriceEditor::revert()
{
    m_model->reset(m_store ? m_store->current() : nullptr);
    updateState();
}

QString PriceEditor::problemText() const
{
    return m_problems->isVisibleTo(this) || !m_problems->text().isEmpty() ? m_problems->text() : QString();
}

} // namespace sb
