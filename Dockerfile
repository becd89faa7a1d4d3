FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY games ./games
COPY bots ./bots
COPY tournaments ./tournaments
COPY web ./web
COPY manage.py ./
RUN pip install --no-cache-dir '.[deploy]'
RUN useradd --create-home baize && mkdir -p /app/var && chown baize /app/var
USER baize
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
