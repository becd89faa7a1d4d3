from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "web"
    verbose_name = "Public web pages"

    def bench_rows(self, *, runs: int, quick: bool, log) -> list[tuple]:
        """The pages' rows of ``make bench`` (the bench command, a layer below, asks)."""
        from .benchmarks import bench_rows  # imports models: not while the apps load

        return bench_rows(runs=runs, quick=quick, log=log)
