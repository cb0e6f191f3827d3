"""The small, contended workload sections the history and PLP tests share: 200 rows, accounts
or subscribers per site, a narrow TPC-C with every transaction type, and `multisite` of the
transactions reaching another site."""

from islands.config.settings import MicroConfig, TatpConfig, TpcbConfig, TpccConfig


def small_sections(workload: str, multisite: float, rows_per_txn: int = 4, update: bool = True) -> dict:
    """The RunConfig keyword (the workload's section) for a small run of `workload`."""
    if workload == "micro":
        return {"micro": MicroConfig(rows_per_site=200, rows_per_txn=rows_per_txn, update=update, multisite=multisite)}
    if workload == "tpcb":
        return {"tpcb": TpcbConfig(accounts_per_branch=200, remote=multisite)}
    if workload == "tpcc":
        return {
            "tpcc": TpccConfig(
                warehouses_per_site=1,
                items=2000,
                customers_per_district=60,
                mix="new_order:40,payment:40,order_status:5,delivery:5,stock_level:10",
                payment_remote=multisite,
                new_order_remote_item=multisite / 5,
            )
        }
    return {"tatp": TatpConfig(subscribers_per_site=200, id_draw="uniform")}
